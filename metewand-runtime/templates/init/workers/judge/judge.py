"""The problem evaluator: recomputes the mean exactly and says whether the answer is within the tolerance."""

import math

import metewand


class Judge(metewand.Evaluator):
    def evaluate(self, dataset, result, problem):
        with open(dataset.path(dataset.data["values"]), encoding="utf-8") as file:
            values = [float(line) for line in file if line.strip()]
        exact = math.fsum(values) / len(values)
        error = abs(result.data["mean"] - exact)
        relative = error / max(abs(exact), math.ulp(1.0))
        verdict = "reached" if relative <= problem.parameters["tolerance"] else "not_reached"
        return verdict, {"error": error, "relative_error": relative}


if __name__ == "__main__":
    metewand.run(Judge)
