"""Django's Redis cache, with one redis-py client per connection pool instead of one per cache call.

Django's RedisCacheClient builds a new `redis.Redis` for every get and set, and redis-py's constructor
copies its table of some 170 reply handlers each time: two cache reads a page (the session, a count)
cost about 1 ms of a 12 ms page at 100,000 matches (bench/load_run.py). A `redis.Redis` takes a
connection from its pool per command and is safe to share.
"""

from django.core.cache.backends.redis import RedisCache, RedisCacheClient


class ReusedClientRedisCacheClient(RedisCacheClient):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class ReusedClientRedisCache(RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = ReusedClientRedisCacheClient
