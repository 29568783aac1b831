"""
Replays a recorded Tree-of-Thoughts Game of 24 run through the paper's own BFS (`solve` of
`src/tot/methods/bfs.py` in a checkout of princeton-nlp/tree-of-thought-llm), unchanged, with its
`gpt` calls answered from the log, and measures the process's CPU time per tree node over the
solve loop alone.

It is the reference side of `npm run bench:game24`, which runs it beside this library's replay in
alternating rounds. Nothing of the reference is copied: the checkout is imported from the path
given, and only `tot.models` (the OpenAI client) is replaced, by a function that returns, call by
call, what the logged run's model answered:

- a propose call: the logged children of the parent being expanded, one per line (a parent that
  was expanded twice in one step has its logged children split between its two calls; the step's
  children come out the same);
- a value call: three samples whose last lines are `sure` (20), `likely` (1) or `impossible`
  (0.001) adding up to the logged value. Which states get a value call is decided beforehand the
  way `get_values` decides it (a state repeated within a step and a value prompt seen before in
  the run make no call), so the answers line up with the calls.

Every replay is checked against the log (each step's new_ys, values and selection); a replay that
differs fails the driver. Two ways of running `solve` alternate:

- as written: `solve(args, task, idx)`, its progress prints on, written to /dev/null;
- prints silenced: `solve(..., to_print=False)`, and its one unconditional `print` a no-op.

CPU time is `time.process_time()` around the loop over the log's puzzles (precomputing the
answers and checking the replay are outside it). Prints one JSON object.

python3 bench/tot-reference-replay.py --reference /tmp/tot-ref --log <log.json> [--csv <24.csv>] [--repeats 5] [--warmup 2]
"""
import argparse
import json
import os
import sys
import time
import types
from collections import deque


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument('--reference', required=True, help='a checkout of princeton-nlp/tree-of-thought-llm')
    parser.add_argument('--log', required=True, help='a BFS log of the reference (propose, value, greedy 5)')
    parser.add_argument('--csv', help="the puzzles (24.csv); default: the checkout's own")
    parser.add_argument('--repeats', type=int, default=5, help='timed replays per way of running')
    parser.add_argument('--warmup', type=int, default=2, help='untimed replays per way of running first')
    return parser.parse_args()


ANSWERS = deque()


def replayed_gpt(prompt, model='gpt-4', temperature=0.7, max_tokens=1000, n=1, stop=None):
    """Stands in for tot.models.gpt: the next answer of the logged run."""
    return ANSWERS.popleft()


def load_reference(path):
    src = os.path.join(path, 'src')
    if not os.path.isfile(os.path.join(src, 'tot', 'methods', 'bfs.py')):
        raise SystemExit(f'{path} is not a checkout of tree-of-thought-llm (no src/tot/methods/bfs.py)')
    sys.path.insert(0, src)
    models = types.ModuleType('tot.models')
    models.gpt = replayed_gpt
    models.gpt_usage = lambda backend='gpt-4': {}
    sys.modules['tot.models'] = models
    try:
        import pandas  # noqa: F401  (the task reads its csv with it)
    except ImportError:
        # Only read_csv(path)['Puzzles'] is used: a stand-in, so that the driver needs no pandas.
        import csv
        stand_in = types.ModuleType('pandas')

        def read_csv(file):
            with open(file, newline='') as f:
                rows = list(csv.DictReader(f))
            return {key: [row[key] for row in rows] for key in rows[0]}

        stand_in.read_csv = read_csv
        sys.modules['pandas'] = stand_in
    from tot.methods import bfs
    from tot.tasks.game24 import Game24Task
    return bfs, Game24Task


def value_outputs(value, n):
    """n samples whose last lines the reference scores as `value` (sure 20, likely 1, impossible 0.001)."""
    for sure in range(n + 1):
        for likely in range(n + 1 - sure):
            for impossible in range(n + 1 - sure - likely):
                if abs(20 * sure + likely + 0.001 * impossible - value) < 1e-9:
                    other = n - sure - likely - impossible
                    return ['sure'] * sure + ['likely'] * likely + ['impossible'] * impossible + ['(no value)'] * other
    raise SystemExit(f'no {n} samples score {value}')


def answers_for(log, task):
    """Per puzzle, the model's answers in the order the reference asks for them."""
    seen_prompts = set()
    per_puzzle = []
    for puzzle in log:
        answers = []
        for step in puzzle['steps']:
            x, new_ys = step['x'], step['new_ys']
            j = 0
            ys = step['ys']
            for k, parent in enumerate(ys):
                run = []
                while j < len(new_ys) and new_ys[j].startswith(parent):
                    run.append(new_ys[j])
                    j += 1
                # A parent expanded again right after: its children are split between the two calls.
                again = 0
                while k + 1 + again < len(ys) and ys[k + 1 + again] == parent:
                    again += 1
                if again > 0 and len(run) > again:
                    keep = len(run) - again * (len(run) // (again + 1))
                    j -= len(run) - keep
                    run = run[:keep]
                answers.append(['\n'.join(child[len(parent):-1] for child in run)])
            if j != len(new_ys):
                raise SystemExit(f"puzzle {puzzle['idx']} step {step['step']}: children that match no parent")
            local = set()
            for y, value in zip(new_ys, step['values']):
                if y in local:
                    continue
                local.add(y)
                prompt = task.value_prompt_wrap(x, y)
                if prompt in seen_prompts:
                    continue
                seen_prompts.add(prompt)
                answers.append(value_outputs(value, 3))
        per_puzzle.append(answers)
    return per_puzzle


def differences(log, infos):
    bad = 0
    for puzzle, info in zip(log, infos):
        for want, got in zip(puzzle['steps'], info['steps']):
            if want['new_ys'] != got['new_ys'] or want['select_new_ys'] != got['select_new_ys']:
                bad += 1
            elif any(abs(a - b) > 1e-9 for a, b in zip(want['values'], got['values'])):
                bad += 1
    return bad


def main():
    options = parse_args()
    bfs, Game24Task = load_reference(options.reference)
    with open(options.log) as f:
        log = json.load(f)
    csv_path = os.path.abspath(options.csv) if options.csv else '24.csv'
    task = Game24Task(csv_path)
    for puzzle in log:
        if task.get_input(puzzle['idx']) != puzzle['steps'][0]['x']:
            raise SystemExit(f"puzzle {puzzle['idx']}: the csv has {task.get_input(puzzle['idx'])!r}, the log {puzzle['steps'][0]['x']!r}")
    answers = answers_for(log, task)
    nodes = sum(1 + sum(len(step['new_ys']) for step in puzzle['steps']) for puzzle in log)
    args = types.SimpleNamespace(backend='gpt-4', temperature=0.7, method_generate='propose', method_evaluate='value',
                                 method_select='greedy', n_generate_sample=1, n_evaluate_sample=3, n_select_sample=5,
                                 prompt_sample=None)
    stdout = sys.stdout
    devnull = open(os.devnull, 'w')
    silent_print = lambda *a, **k: None  # noqa: E731

    def replay(silenced):
        task.value_cache = {}
        infos = []
        ANSWERS.clear()
        for a in answers:
            ANSWERS.extend(a)
        if silenced:
            bfs.print = silent_print
        elif hasattr(bfs, 'print'):
            del bfs.print
        sys.stdout = devnull
        try:
            started = time.process_time()
            for puzzle in log:
                _, info = bfs.solve(args, task, puzzle['idx'], to_print=not silenced)
                infos.append(info)
            used = time.process_time() - started
        finally:
            sys.stdout = stdout
        if ANSWERS:
            raise SystemExit(f'{len(ANSWERS)} answers left over: the replay made fewer model calls than the log')
        bad = differences(log, infos)
        if bad:
            raise SystemExit(f'{bad} steps differ from the log')
        return used * 1e6 / nodes

    for _ in range(options.warmup):
        replay(False)
        replay(True)
    written, silenced = [], []
    for _ in range(options.repeats):
        written.append(replay(False))
        silenced.append(replay(True))
    print(json.dumps({
        'nodes': nodes,
        'python': sys.version.split()[0],
        'modelCalls': sum(len(a) for a in answers),
        'cpuMicrosPerNode': {'asWritten': written, 'printsSilenced': silenced},
    }))


if __name__ == '__main__':
    main()
