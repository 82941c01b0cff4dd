"""The dataset materializer: a random A (rows x columns) and b = A x_true + noise, drawn from the dataset seed."""

import random

import metewand


class Generate(metewand.Materializer):
    def materialize(self, source_dir, parameters, seed, output):
        rng = random.Random(seed)
        rows, columns, noise = parameters["rows"], parameters["columns"], parameters["noise"]
        truth = [rng.gauss(0.0, 1.0) for _ in range(columns)]
        with output.open("matrix.csv") as matrix, output.open("rhs.csv") as rhs:
            for _ in range(rows):
                row = [rng.gauss(0.0, 1.0) for _ in range(columns)]
                matrix.write(",".join(repr(v) for v in row) + "\n")
                value = sum(a * x for a, x in zip(row, truth)) + rng.gauss(0.0, noise)
                rhs.write(repr(value) + "\n")
        output.data = {"rows": rows, "columns": columns, "matrix": "matrix.csv", "rhs": "rhs.csv"}


if __name__ == "__main__":
    metewand.run(Generate)
