#!/bin/bash
# Session 2026-12-03c call 4: results/h200/suite/mainloop/issue_probe.cu (built here with nvcc 13.0, carried).
set -u
nvidia-smi --query-gpu=name,uuid,driver_version --format=csv,noheader | tee $OUT/issue_probe.txt
timeout 60 build-rel/dev/issue_probe 512 | tee -a $OUT/issue_probe.txt
timeout 60 build-rel/dev/issue_probe 2048 | tee -a $OUT/issue_probe.txt
