#!/usr/bin/env python3
"""Independent count of a search space's valid configs, for the enumeration golden tests.

It shares no code with the C++ enumerator: it walks the cartesian product with itertools and evaluates the
constraint strings with Python after a textual translation of the C-like operators. Prints one integer.
"""
import itertools
import json
import re
import sys


def domain(spec):
    if "values" in spec:
        return spec["values"]
    if "pow2" in spec:
        lo, hi = spec["pow2"]
        out, v = [], lo
        while v <= hi:
            out.append(v)
            v *= 2
        return out
    lo, hi = spec["range"][0], spec["range"][1]
    step = spec["range"][2] if len(spec["range"]) > 2 else 1
    return list(range(lo, hi + 1, step))


def to_python(expr):
    expr = expr.replace("&&", " and ").replace("||", " or ")
    expr = re.sub(r"!(?!=)", " not ", expr)
    expr = re.sub(r"(?<![/])/(?![/])", "//", expr)  # integer division (all operands are non-negative here)
    return expr


def main(path, with_points=False):
    space = json.load(open(path))
    names = list(space["parameters"].keys())
    domains = [domain(space["parameters"][n]) for n in names]
    derived = [(k, compile(to_python(v), k, "eval")) for k, v in space.get("derived", {}).items()]
    constraints = [compile(to_python(c), c, "eval") for c in space.get("constraints", [])]
    helpers = {"min": min, "max": max, "is_pow2": lambda x: int(x > 0 and (x & (x - 1)) == 0)}
    count = 0
    for values in itertools.product(*domains):
        env = dict(helpers)
        env.update(space.get("constants", {}))
        env.update(zip(names, values))
        for k, code in derived:
            env[k] = int(eval(code, {}, env))
        if all(eval(code, {}, env) for code in constraints):
            count += 1
    if with_points:
        # Named points lying outside the domains are candidates too (inside ones are already counted).
        for point in space.get("points", {}).values():
            if any(point[n] not in d for n, d in zip(names, domains)):
                count += 1
    print(count)


if __name__ == "__main__":
    main(sys.argv[-1], with_points="--with-points" in sys.argv)
