"""The same submission, autograded again, gets the same score, statistical checks included."""

from grading import ASSIGNMENT, grade, pipeline

# A right answer, one that the statistical checks catch, and one that draws from an unseeded source.
STUDENTS = ["02-correct-for-enumerate", "02-q-over-p", "02-random-module", "02-greater-coin"]


def test_regrading_gives_the_same_grades_every_time(graded_course):
    first = {s: graded_course.grades(s, "02_reject_and_break") for s in STUDENTS}
    root = graded_course.root
    for _ in range(2):  # regraded by `make grade`'s workers (the first grading was the plain nbgrader CLI's)
        assert grade.run_workers(root, STUDENTS, 2, grade.default_db_url(root), echo=False) == dict.fromkeys(STUDENTS)
        again = pipeline.scores(root)
        assert {s: again[s]["02_reject_and_break"] for s in STUDENTS} == first
    # the statistical checks really ran and told the answers apart
    assert first["02-correct-for-enumerate"]["hidden_acceptance_rate"] == (1.0, 1.0)
    assert first["02-q-over-p"]["hidden_acceptance_rate"] == (0.0, 1.0)
