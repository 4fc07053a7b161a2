"""Writes a tree scenario for the memory benchmark of routes and loading: one root, fan-out 10,
N nodes, 10 Mbit/s 1 ms links, and one TCP bulk flow between two leaves.

    python benches/make_tree.py 100000 > /tmp/tree.toml
    /usr/bin/time -v target/release/examples/run /tmp/tree.toml
"""

import sys


def tree(n: int) -> str:
    lines = ["[sim]", 'duration = "10s"', "seed = 1", ""]
    for k in range(n):
        lines += ["[[nodes]]", f'name = "n{k}"']
    for k in range(1, n):
        lines += [
            "[[links]]",
            f'name = "l{k}"',
            f'ends = ["n{(k - 1) // 10}", "n{k}"]',
            'rate = "10Mbps"',
            'delay = "1ms"',
        ]
    lines += [
        "[[flows]]",
        'name = "f"',
        f'from = "n{n - 1}"',
        f'to = "n{n // 9}"',
        'app = { kind = "bulk" }',
        'transport = { kind = "tcp" }',
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(tree(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000))
