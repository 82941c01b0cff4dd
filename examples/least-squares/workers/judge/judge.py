"""The problem evaluator: recomputes the answer's objective, solves for the optimum, and compares them.

The verdict is "reached" when the relative gap to the optimum is within the problem's tolerance, "not_reached"
when it is not, and "invalid" when the result is not a vector of the right length: a solution file that is not
JSON, a data member that is missing or of another type, raise InvalidResult through the SDK's helpers, so a result
that cannot be read is the implementation's fault, never the judge's failure. The metrics also carry the
residual |(A^T A + lambda I) x - A^T b| of the answer, computed here rather than taken from the implementation.

The optimum depends only on the dataset and lambda, so a judge that serves several attempts (reused sessions)
computes it once per dataset: the references of the last eight datasets it judged are kept, each under the
dataset's file digests, which Metewand verified. A reused session takes its attempts on each dataset in turn, so the
last dataset alone would seldom be the next one's.
"""

import math

import metewand

import ridge


class Judge(metewand.Evaluator):
    # How many datasets' references are kept, the least recently used dropped first.
    KEEP = 8

    def __init__(self):
        # By key (the files' names and digests, lambda): A, b, the normal equations and the optimum.
        self.references = {}

    def evaluate(self, dataset, result, problem):
        lam, tolerance = problem.parameters["lambda"], problem.parameters["tolerance"]
        names = (dataset.data["matrix"], dataset.data["rhs"])
        key = (names, tuple((record.path, record.sha256) for record in dataset.files), lam)
        reference = self.references.pop(key, None)
        if reference is None:
            a = ridge.read_matrix(dataset.path(names[0]))
            b = ridge.read_vector(dataset.path(names[1]))
            gram, rhs = ridge.normal_equations(a, b, lam)
            reference = (a, b, gram, rhs, ridge.objective(a, b, lam, ridge.cholesky_solve(gram, rhs)))
        self.references[key] = reference
        while len(self.references) > self.KEEP:
            del self.references[next(iter(self.references))]
        a, b, gram, rhs, optimum = reference
        solution = result.json(result.field("solution", str))
        x = solution.get("x") if isinstance(solution, dict) else None
        numbers = isinstance(x, list) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in x)
        if not (numbers and len(x) == len(a[0])):
            raise metewand.InvalidResult("the solution is not a vector of the system's size")
        value = ridge.objective(a, b, lam, x)
        gap = (value - optimum) / max(optimum, math.ulp(1.0))
        verdict = "reached" if gap <= tolerance else "not_reached"
        residual = ridge.residual_norm(gram, rhs, x)
        return verdict, {"objective": value, "optimum": optimum, "relative_gap": gap, "residual": residual}


    def invalid_metrics(self, problem, reason):
        return {"objective": 0.0, "optimum": 0.0, "relative_gap": 0.0, "residual": 0.0}


if __name__ == "__main__":
    metewand.run(Judge)
