import time
MAX_PLY=8
TIME_SHARE=0.5


def lower_bound_from_parity(nums):
    # guaranteed lead from the even/odd strategy
    even_sum = sum(nums[0::2]); odd_sum = sum(nums[1::2])
    if len(nums) % 2:
        return max(even_sum - odd_sum, 0)
    return abs(even_sum - odd_sum)


def negamax(nums, first, last, plies, a, b, stop_at):
    if first > last: return 0
    if plies == 0 or time.monotonic() > stop_at:
        return lower_bound_from_parity(nums[first:last + 1])
    top = -10**9
    for taken, new_first, new_last in (
        (nums[first], first + 1, last),
        (nums[last], first, last - 1),
    ):
        val = taken - negamax(
            nums, new_first, new_last, plies - 1, -b, -a, stop_at
        )
        if val > top:
            top = val
        a = max(a, val)
        if a >= b:
            break
    return top


class Bot:

    def setup(self, game_info):
        self.my_seat = game_info['seat']
        self.turns = 0

    def act(self, obs):
        nums = obs['board']
        stop_at = time.monotonic() + TIME_SHARE
        last = len(nums) - 1
        go_left = nums[0] - negamax(nums, 1, last, MAX_PLY, -10**9, 10**9, stop_at)
        go_right = nums[last] - negamax(nums, 0, last - 1, MAX_PLY, -10**9, 10**9, stop_at)
        self.turns += 1
        return 'left' if go_left >= go_right else 'right'
