"""AST mutants of the reference solutions, graded in-process by the real verdict code.

Operators: flip each comparison, shift each index and each integer constant by one, swap the names
p and q, drop or duplicate each statement, turn each break into continue and back, drop each return's
value, change each row used (``x[i]`` to ``x[0]``). Each mutant is the reference's answer cell with one
change; ``grade`` runs it through every test cell of its notebook with grading.judge.diagnosis.judge_of,
the same Judge (grading/judge/verdicts.py) and checks nbgrader runs.
"""

import ast
import copy
import re
from pathlib import Path

import nbformat

from grading import ASSIGNMENT, ROOT
from grading.build import catalogue

LEVEL24 = "level24_residual_and_bonus"
NOTEBOOKS = {ASSIGNMENT: ("01_accept_branch", "02_reject_and_break"),
             LEVEL24: ("01_correction_token", "02_bonus_and_step")}
_FLIP = {ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq}
_MARKER = re.compile(r"^\s*### (BEGIN|END) SOLUTION\s*$", re.M)


def reference(assignment, notebook):
    """The lesson's own reference solution: the source notebook's answer cell, markers removed."""
    nb = nbformat.read(ROOT / "source" / assignment / f"{notebook}.ipynb", as_version=4)
    return _MARKER.sub("", catalogue.solution_cell(nb).source)


def references(assignment, notebook, answers=True):
    out = [("reference", reference(assignment, notebook))]
    if answers:
        out += [(a.name, a.code) for a in catalogue.load(notebook, assignment) if a.full_marks]
    return out


def _sites(tree):
    """(kind, node index, choice) for every mutation the tree allows."""
    nodes = list(ast.walk(tree))
    for n, node in enumerate(nodes):
        if isinstance(node, ast.Compare):
            for k, op in enumerate(node.ops):
                if type(op) in _FLIP:
                    yield "flip", n, k
        if isinstance(node, ast.Subscript):
            yield "index+1", n, 0
            yield "index-1", n, 0
            if not (isinstance(node.slice, ast.Constant) and node.slice.value == 0):
                yield "row0", n, 0
        if isinstance(node, ast.Constant) and type(node.value) is int:
            yield "const+1", n, 0
            yield "const-1", n, 0
        if isinstance(node, ast.Name) and node.id in ("p", "q"):
            yield "swap_pq", n, 0
        if isinstance(node, (ast.Break, ast.Continue)):
            yield "break_continue", n, 0
        if isinstance(node, ast.Return) and node.value is not None:
            yield "return_none", n, 0
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                for k in range(len(block)):
                    if not isinstance(block[k], ast.FunctionDef):
                        yield f"drop_{field}", n, k
                        yield f"dup_{field}", n, k


def _apply(tree, kind, n, k):
    tree = copy.deepcopy(tree)
    node = list(ast.walk(tree))[n]
    if kind == "flip":
        node.ops[k] = _FLIP[type(node.ops[k])]()
    elif kind in ("index+1", "index-1"):
        node.slice = ast.BinOp(node.slice, ast.Add() if kind == "index+1" else ast.Sub(), ast.Constant(1))
    elif kind == "row0":
        node.slice = ast.Constant(0)
    elif kind in ("const+1", "const-1"):
        node.value += 1 if kind == "const+1" else -1
    elif kind == "swap_pq":
        node.id = "q" if node.id == "p" else "p"
    elif kind == "break_continue":
        node.__class__ = ast.Continue if isinstance(node, ast.Break) else ast.Break
    elif kind == "return_none":
        node.value = None
    elif kind.startswith(("drop_", "dup_")):
        block = getattr(node, kind.split("_", 1)[1])
        if kind.startswith("drop_"):
            block[k:k + 1] = [ast.Pass()] if len(block) == 1 else []
        else:
            block.insert(k, copy.deepcopy(block[k]))
    return ast.unparse(ast.fix_missing_locations(tree))


def mutants(code):
    """[(description, source)] of every distinct one-change mutant of ``code`` that still compiles."""
    tree = ast.parse(code)
    seen, out = {ast.unparse(tree)}, []
    for kind, n, k in _sites(tree):
        try:
            source = _apply(tree, kind, n, k)
            compile(source, "<mutant>", "exec")
        except (SyntaxError, ValueError, TypeError, AttributeError):
            continue
        if source not in seen:
            seen.add(source)
            out.append((f"{kind}@{n}.{k}", source))
    return out


def edited(assignment, notebook, edits):
    """The reference of ``notebook`` with each (text, replacement) of ``edits`` applied, each text found once."""
    code = reference(assignment, notebook)
    for old, new in edits:
        assert code.count(old) == 1, old
        code = code.replace(old, new)
    return code


def grade(code, assignment, notebook):
    """(the Judge after every check, the diagnosis line) for the answer ``code``."""
    from grading.judge import diagnosis

    made = {}
    judge = diagnosis.judge_of(code, notebook, ROOT / "source" / assignment, made)
    judge.outputs_by_check = {check: outputs for check, (_, outputs) in made.items()}
    return judge, diagnosis.line(notebook, judge, assignment=assignment, outputs=judge.outputs_by_check)


def classify(judge, line, baseline_trace):
    """One of: equivalent, missed (changes behaviour, full marks), named, cannot name, false none."""
    from grading.judge import diagnosis

    changed = judge.trace != baseline_trace or bool(judge.failed)
    if not changed:
        return "equivalent" if line == "Diagnosis: " + diagnosis.NONE else "wrong (equivalent not none)"
    if not judge.failed:
        return "missed"
    if line == "Diagnosis: " + diagnosis.NONE:
        return "false none"
    if line.startswith("Diagnosis: " + diagnosis.UNKNOWN.split(";")[0]):
        return "cannot name"
    if line.startswith("Diagnosis: not made"):
        return "not made"
    return "named"


def diagnosis_none():
    from grading.judge import diagnosis
    return diagnosis.NONE
