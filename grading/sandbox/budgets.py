"""How long grading one submission may take: the one place for these numbers.

- a cell (``c.Execute.timeout`` in nbgrader_config.py, CELL) and each grader call (the same);
- a notebook (NOTEBOOK): the wall-clock time of all its cells and checks together;
- a student (STUDENT): all notebooks of one assignment together.

``ResilientExecute`` (grading/plugins/preprocessors.py) enforces the notebook's and the student's budgets on
every path, the plain ``nbgrader autograde`` included (traits ``notebook_budget`` and
``student_budget``): past them the remaining cells are not run and the checks count as failed, with
a message saying the budget was spent. `make grade`'s per-student DEADLINE (grading/grade.py) is the
backstop for what the budgets do not count: kernel start-up, nbgrader's own work, the one cell or
check that runs when the budget ends (at most CELL + INTERRUPT_GRACE more per notebook).
"""

CELL = 10  # seconds a cell may run (c.Execute.timeout)
INTERRUPT_GRACE = 3  # seconds a timed-out cell or check gets to stop after the interrupt
NOTEBOOK = 60  # seconds of one notebook's cells and checks
STUDENT = 150  # seconds of all notebooks of one student's assignment
DEADLINE = 2 * STUDENT  # seconds `make grade` gives one student before it stops their worker

# Feedback (issue 41): each page is rendered in a child process with these bounds (PageExporter: page_seconds,
# student_seconds, page_memory); past them the page is replaced by a short one that says it was cut, with the scores.
# Wall clock, so a busy machine makes pages slower: an honest page of notebook 02 takes 1.3 s of CPU (1.9-9.9 s of
# wall clock at a load of 2-9 on 2 cores), 1.5 MB of a student's markdown output 3 s of CPU (7.4 s before issue 41).
FEEDBACK_PAGE = 20  # seconds (wall clock) to render one feedback page
FEEDBACK_STUDENT = 40  # seconds of all one student's feedback pages of an assignment in one run
FEEDBACK_MEMORY = 1024 * 2**20  # bytes of address space a page's rendering may add
