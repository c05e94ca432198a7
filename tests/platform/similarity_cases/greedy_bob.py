class Bot:
    def setup(self, info):
        self.seat = info["seat"]
        self.taken = []

    def act(self, obs):
        ends = {"left": obs["board"][0], "right": obs["board"][-1]}
        choice = max(obs["legal_actions"], key=lambda side: ends[side])
        self.taken.append(ends[choice])
        print(f"took {ends[choice]}, {sum(self.taken)} so far")
        return choice
