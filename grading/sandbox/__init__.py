"""The sandbox: where a student's code runs while it is graded, and nothing else does.

    kernels.py         the kernel managers nbgrader uses (bubblewrap, or forked from the fork server) and their client
    forkserver.py      the fork server: imports once, forks each notebook's kernel into its namespaces
    sandbox_init.py    the first program in a bubblewrap sandbox: scratch sizes, limits, the drop to a fresh uid
    cgroups.py         one cgroup per sandbox: its memory and processes limited together
    kernel_harness.py  the grading kernel: IPython, plus the grader's calls answered as plain data
    budgets.py         how long a cell, a notebook and a student may take

Light on purpose: the fork server, run as a script, imports ``sandbox_init`` through this package.
"""
