"""A SortingGame bot: plays its fastest valid algorithm and questions every card it can prove invalid.

It judges cards from the deck data in the observation (`cards`, `complexity_order`), the way the
referee does, so it also works with an instructor's own deck.
"""


class Bot:
    def setup(self, info):
        self.seat = info["seat"]  # setup is optional; print() here or in act goes to your log

    def act(self, obs):
        legal = obs["legal_actions"]
        if obs["phase"] == "algorithm":
            valid = [a for a in legal if a["action"] == "play" and self.valid(obs, a["card"])]
            if valid:
                return min(valid, key=lambda a: self.rank(obs, obs["cards"][a["card"]][obs["active"]["case"]]))
            return {"action": "pass"}
        if obs["phase"] == "question":
            for action in legal:
                if action["action"] == "question" and not self.valid(obs, obs["plays"][action["seat"]]["card"]):
                    return action
        return {"action": "pass"}  # special phase: keep it simple and play no special card

    @staticmethod
    def rank(obs, complexity):
        """Position of a class like "N log N" in the deck's growth order (0 is the fastest)."""
        return obs["complexity_order"].index(complexity)

    def valid(self, obs, card):
        """Whether the algorithm `card` meets every active criterion under the active case."""
        algorithm, case = obs["cards"][card], obs["active"]["case"]
        for criterion in obs["active"]["criteria"]:
            requires = obs["cards"][criterion]["requires"]
            prop = case if requires["property"] == "time" else requires["property"]
            if "is" in requires:
                ok = algorithm[prop] == requires["is"]
            else:
                relation, bound = requires["bound"][0], requires["bound"][2:-1]  # "Θ(N log N)"
                mine, limit = self.rank(obs, algorithm[prop]), self.rank(obs, bound)
                ok = {"Θ": mine == limit, "O": mine <= limit, "Ω": mine >= limit}[relation]
            if not ok:
                return False
        return True
