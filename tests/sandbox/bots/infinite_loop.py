"""Never answers: spins forever on its first decision."""


def act(observation):
    while True:
        pass
