"""An implementation that runs a fixed number of conjugate-gradient steps on the normal equations."""

import metewand

import ridge


class ConjugateGradient(metewand.Implementation):
    def prepare(self, dataset, parameters, seed, problem):
        self.a = ridge.read_matrix(dataset.path(dataset.data["matrix"]))
        self.b = ridge.read_vector(dataset.path(dataset.data["rhs"]))
        self.lam = problem.parameters["lambda"]
        self.iterations = parameters["iterations"]

    def execute(self, result):
        gram, rhs = ridge.normal_equations(self.a, self.b, self.lam)
        x, steps = ridge.conjugate_gradient(gram, rhs, self.iterations)
        result.write_json("solution.json", {"x": x})
        result.data = {"solution": "solution.json", "objective": ridge.objective(self.a, self.b, self.lam, x)}
        return {"iterations": steps}


if __name__ == "__main__":
    metewand.run(ConjugateGradient)
