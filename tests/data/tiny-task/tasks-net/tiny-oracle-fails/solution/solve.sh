#!/bin/bash
# A broken reference solution: it writes the wrong answer, so the oracle control fails and the
# task is left out of an agent's headline (benchreport's controls verdict "fails").
set -e
echo 41 > /app/answer.txt
echo "oracle wrote the wrong answer to /app/answer.txt"
