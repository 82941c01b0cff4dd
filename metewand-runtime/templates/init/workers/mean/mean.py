"""An implementation: the mean of the sample, summed exactly (math.fsum) so that it does not depend on the order."""

import math

import metewand


class Mean(metewand.Implementation):
    def prepare(self, dataset, parameters, seed, problem):
        # Reading the data is preparation; only `execute` is timed.
        with open(dataset.path(dataset.data["values"]), encoding="utf-8") as file:
            self.values = [float(line) for line in file if line.strip()]

    def execute(self, result):
        result.data = {"mean": math.fsum(self.values) / len(self.values)}
        return {}


if __name__ == "__main__":
    metewand.run(Mean)
