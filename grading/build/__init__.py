"""The course build: what is generated from one source, with a check that fails when a copy drifts.

    notebooks.py  source/<assignment>/*.ipynb and every edition's helpers from lessons/ (`python -m grading.build`)
    catalogue.py  the answer catalogue (answers/) and the submissions built from it
"""
