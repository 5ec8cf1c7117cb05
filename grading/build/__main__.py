import sys

from grading.build.notebooks import main

sys.exit(main(sys.argv[1:]))
