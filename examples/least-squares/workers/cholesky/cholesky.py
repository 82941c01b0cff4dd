"""An implementation that solves the normal equations directly, by Cholesky factorisation."""

import metewand

import ridge


class Cholesky(metewand.Implementation):
    def prepare(self, dataset, parameters, seed, problem):
        self.a = ridge.read_matrix(dataset.path(dataset.data["matrix"]))
        self.b = ridge.read_vector(dataset.path(dataset.data["rhs"]))
        self.lam = problem.parameters["lambda"]

    def execute(self, result):
        gram, rhs = ridge.normal_equations(self.a, self.b, self.lam)
        x = ridge.cholesky_solve(gram, rhs)
        result.write_json("solution.json", {"x": x})
        result.data = {"solution": "solution.json", "objective": ridge.objective(self.a, self.b, self.lam, x)}
        return {"columns": len(x)}


if __name__ == "__main__":
    metewand.run(Cholesky)
