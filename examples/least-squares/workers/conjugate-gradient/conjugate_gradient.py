"""An implementation that runs a fixed number of conjugate-gradient steps on the normal equations.

On a problem with a profile it streams: each checkpoint is the iterate after 1, 2, 3, 4, 6, 8, 11, ... steps (about
1.4 times as many each time, so that they spread evenly on a log time axis), judged by the problem's evaluator.
"""

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
        self.answer(result, x)
        return {"iterations": steps}

    def execute_stream(self, result, checkpoint):
        gram, rhs = ridge.normal_equations(self.a, self.b, self.lam)
        x, steps, mark = [0.0] * len(rhs), 0, 1.0
        for x, steps in ridge.conjugate_gradient_steps(gram, rhs, self.iterations):
            if steps >= mark:
                mark = max(mark * 1.4, steps + 1)
                self.answer(result, x)
                if not checkpoint():
                    break
        self.answer(result, x)
        return {"iterations": steps}

    def answer(self, result, x):
        result.write_json("solution.json", {"x": x})
        result.data = {"solution": "solution.json", "objective": ridge.objective(self.a, self.b, self.lam, x)}


if __name__ == "__main__":
    metewand.run(ConjugateGradient)
