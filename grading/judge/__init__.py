"""The judge: verdicts and diagnoses, decided in the grader from plain data, never in the student's kernel.

    verdicts.py     the hidden checks' verdicts: the grader calls the student's function and decides each property
    rules.py        the diagnosis by rules over what the function did in the checks (Level 24's rules are here)
    rules23.py      Level 23's rules, against models of the known mistakes
    diagnosis.py    the diagnosis line, and diagnoses.json (built from answers/ and source/, checked by a test)
    grader_text.py  the grader's own messages in a graded notebook, in the edition's language
"""
