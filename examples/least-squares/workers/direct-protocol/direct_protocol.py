"""The Cholesky implementation again, speaking Metewand's worker protocol itself instead of using the SDK.

It shows what the protocol asks of a worker in any language: read one JSON request per line on stdin, answer each
with one JSON line on stdout, write the result's files and then its manifest, and report "sdk": null.
"""

import hashlib
import json
import os
import sys
import time

import ridge

protocol = sys.stdout
sys.stdout = sys.stderr  # anything printed by accident goes to the log, not the protocol stream


def send(message):
    protocol.write(json.dumps(message, sort_keys=True, separators=(",", ":"), ensure_ascii=False) + "\n")
    protocol.flush()


def failure(request_id, code, message):
    return {"error": {"code": code, "message": message}, "id": request_id, "ok": False}


def write_result(result_dir, x, objective):
    with open(os.path.join(result_dir, "solution.json"), "w", encoding="utf-8") as file:
        json.dump({"x": x}, file)
    files = []
    for name in sorted(os.listdir(result_dir)):
        with open(os.path.join(result_dir, name), "rb") as file:
            content = file.read()
        files.append({"path": name, "sha256": hashlib.sha256(content).hexdigest(), "size": len(content)})
    manifest = {"data": {"objective": objective, "solution": "solution.json"}, "files": files}
    # The manifest is written last, once every file it names is closed.
    with open(os.path.join(result_dir, "result.json"), "w", encoding="utf-8") as file:
        json.dump(manifest, file, sort_keys=True, separators=(",", ":"))


# Every request's members and what each must be; a request with any other member, or a member of the wrong type,
# is refused with invalid_request, as the schema refuses it.
TEXT, SEED, OBJECT, VERSIONS = "text", "seed", "object", "versions"
REQUESTS = {
    "hello": {"protocols": VERSIONS, "role": TEXT, "worker_id": TEXT},
    "prepare": {"dataset_dir": TEXT, "implementation_parameters": OBJECT, "implementation_seed": SEED,
                "problem_contract_id": TEXT, "problem_parameters": OBJECT},
    "execute": {"result_dir": TEXT},
    "reset": {},
    "shutdown": {},
}
OTHER_ROLES = {"materialize", "evaluate"}


def well_typed(kind, value):
    if kind == TEXT:
        return isinstance(value, str) and value != ""
    if kind == SEED:
        return type(value) is int and 0 <= value <= 2**53 - 1
    if kind == OBJECT:
        return isinstance(value, dict)
    return isinstance(value, list) and value != [] and all(type(v) is int for v in value)


def refusal(request, greeted):
    """The failure a request gets instead of being served, or None."""
    request_id, method = request["id"], request.get("method")
    if method in OTHER_ROLES:
        return failure(request_id, "unsupported_operation", f"an implementation does not accept {method}")
    if method not in REQUESTS:
        return failure(request_id, "invalid_request", f"unknown method {json.dumps(method)}")
    fields = REQUESTS[method]
    if set(request) != set(fields) | {"id", "method"}:
        return failure(request_id, "invalid_request", f"a {method} request has exactly the members of its schema")
    if not all(well_typed(kind, request[name]) for name, kind in fields.items()):
        return failure(request_id, "invalid_request", f"a member of this {method} request has the wrong type")
    if method == "hello" and greeted:
        return failure(request_id, "invalid_request", "hello was already answered")
    if method not in ("hello", "shutdown") and not greeted:
        return failure(request_id, "invalid_request", f"{method} before hello")
    return None


def main():
    state = {}
    greeted = False
    for line in sys.stdin:
        try:
            request = json.loads(line)
        except ValueError as error:
            print(f"direct_protocol: a line that is not JSON cannot be answered: {error}", file=sys.stderr)
            return 2
        if not isinstance(request, dict) or not isinstance(request.get("id"), str) or request["id"] == "":
            print("direct_protocol: a request without a usable id cannot be answered", file=sys.stderr)
            return 2
        refused = refusal(request, greeted)
        if refused is not None:
            send(refused)
            continue
        request_id, method = request["id"], request["method"]
        if method == "hello":
            if request["role"] != "implementation" or 1 not in request["protocols"]:
                send(failure(request_id, "unsupported_operation", "this worker is an implementation speaking protocol 1"))
                continue
            greeted = True
            send({"capabilities": ["one_shot"], "id": request_id, "ok": True, "protocol": 1, "sdk": None,
                  "worker_id": request["worker_id"]})
        elif method == "prepare":
            state.clear()
            with open(os.path.join(request["dataset_dir"], "dataset-manifest.json"), encoding="utf-8") as file:
                data = json.load(file)["data"]
            state["a"] = ridge.read_matrix(os.path.join(request["dataset_dir"], data["matrix"]))
            state["b"] = ridge.read_vector(os.path.join(request["dataset_dir"], data["rhs"]))
            state["lambda"] = request["problem_parameters"]["lambda"]
            send({"id": request_id, "ok": True})
        elif method == "execute":
            if "a" not in state:
                send(failure(request_id, "invalid_request", "execute before prepare"))
                continue
            started = time.monotonic_ns()
            gram, rhs = ridge.normal_equations(state["a"], state["b"], state["lambda"])
            x = ridge.cholesky_solve(gram, rhs)
            write_result(request["result_dir"], x, ridge.objective(state["a"], state["b"], state["lambda"], x))
            send({"id": request_id, "implementation_time_ns": time.monotonic_ns() - started, "ok": True,
                  "result": {"manifest": "result.json"}, "statistics": {"columns": len(x)}})
        elif method == "reset":
            state.clear()
            send({"id": request_id, "ok": True})
        elif method == "shutdown":
            send({"id": request_id, "ok": True})
            return 0
    return 1


if __name__ == "__main__":
    sys.exit(main())
