"""A well-behaved bot: prints a little and plays the first legal action."""


def setup(info):
    print("setting up for", info.get("game"))


def act(observation):
    print("thinking about step", observation.get("step"))
    return observation["legal_actions"][0]
