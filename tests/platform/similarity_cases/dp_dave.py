class Bot:
    """Dynamic programming: dp[i][j] = best margin for the player to move on numbers[i..j]."""

    def margins(self, numbers):
        size = len(numbers)
        dp = [[0] * size for _ in range(size)]
        for i in range(size):
            dp[i][i] = numbers[i]
        for length in range(2, size + 1):
            for i in range(size - length + 1):
                j = i + length - 1
                dp[i][j] = max(numbers[i] - dp[i + 1][j], numbers[j] - dp[i][j - 1])
        return dp

    def act(self, obs):
        numbers = obs["board"]
        if len(numbers) == 1:
            return obs["legal_actions"][0]
        dp = self.margins(numbers)
        last = len(numbers) - 1
        if numbers[0] - dp[1][last] >= numbers[last] - dp[0][last - 1]:
            return "left"
        return "right"
