"""The dataset materializer: `count` numbers drawn from a normal distribution, from the dataset seed."""

import random

import metewand


class Generate(metewand.Materializer):
    def materialize(self, source_dir, parameters, seed, output):
        rng = random.Random(seed)
        with output.open("values.txt") as values:
            for _ in range(parameters["count"]):
                values.write(repr(rng.gauss(parameters["loc"], parameters["scale"])) + "\n")
        output.data = {"count": parameters["count"], "values": "values.txt"}


if __name__ == "__main__":
    metewand.run(Generate)
