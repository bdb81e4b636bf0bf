#!/usr/bin/env python3
"""Exit 0 when two tevsuite JSON results are equal apart from wall-clock fields ("seconds").

usage: same_results.py A.json B.json
"""
import json
import sys


def without_timings(x):
    if isinstance(x, dict):
        return {k: without_timings(v) for k, v in x.items() if k != "seconds"}
    if isinstance(x, list):
        return [without_timings(v) for v in x]
    return x


def first_difference(a, b, path="$"):
    if type(a) is not type(b):
        return path
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return f"{path}.{k}"
            d = first_difference(a[k], b[k], f"{path}.{k}")
            if d:
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return f"{path} (length)"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}[{i}]")
            if d:
                return d
        return None
    return None if a == b else path


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    a, b = (without_timings(json.load(open(p))) for p in sys.argv[1:])
    where = first_difference(a, b)
    if where:
        sys.exit(f"results differ at {where}")
    print("identical apart from timings")


if __name__ == "__main__":
    main()
