#!/usr/bin/env bash
# Every GPU measurement of the device work, in one call of a lent machine (an H100 or H200 with the
# CUDA build of jax; nothing to download there: the Python packages it lacks travel as wheels in
# .whl/, see .library's device notes). Each part has its own time limit, so a slow part costs only
# its own figures; the logs and result files go to $OUT (default /tmp/device_check).
#
#   bash benchmarks/device_check.sh                     # about 9 minutes
#
# 1. The from-scratch recipe on the device (configs/train/scratch_jax.yaml) for SCRATCH_S seconds:
#    its evaluations (win rate against four bayes_v1 and four random, paired with bayes_v2 in the
#    learner's seat) by steps and wall time, and its learner steps/s.
# 2. benchmarks/bench_training.py's device path: learner steps/s against four random and four
#    bayes_v1, and the environment alone (each line compiles once, about a minute on an H200).
# The JAX engine's own figures are benchmarks/bench_jax.py's (docs/jax.md has its GPU command).
set -uo pipefail
OUT="${OUT:-/tmp/device_check}"
mkdir -p "$OUT"
SCRATCH_S="${SCRATCH_S:-300}"
BENCH_S="${BENCH_S:-240}"
export PYTHONUNBUFFERED=1

if [ -d .whl ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
    export PYTHONPATH="/tmp/site:${PYTHONPATH:-}"
fi
# the checkout itself on the path, training/ and configs/ where the installed package has them
# (ckc_env.training, ckc_env.configs), the links removed at the end
for part in training configs; do
    [ -e "ckc_env/$part" ] || { ln -s "../$part" "ckc_env/$part" && made="${made:-} ckc_env/$part"; }
done
trap 'rm -f ${made:-}' EXIT
export PYTHONPATH="$PWD:${PYTHONPATH:-}"
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$OUT/device.txt"
python3 -c "import jax, optax; print('jax', jax.__version__, 'optax', optax.__version__, jax.devices())" | tee -a "$OUT/device.txt"

# 1. from scratch, on the clock
# (a new folder each time: an earlier run is never touched)
RUN="${RUN:-runs/scratch_jax_device_$(date -u +%Y%m%dT%H%M%S)}"
mkdir -p runs
timeout "$SCRATCH_S" python3 -m ckc_env.training.commands.train configs/train/scratch_jax.yaml \
    --run-dir "$RUN" --no-progress 2>&1 | tee "$OUT/scratch.log"
tar czf "$OUT/scratch_jax_device.tar.gz" --exclude=tensorboard --exclude="train_state*" --exclude="latest_model*" \
    -C "$(dirname "$RUN")" "$(basename "$RUN")"
echo "run folder: $RUN"

# 2. the training benchmark's device path
timeout "$BENCH_S" python3 benchmarks/bench_training.py --jax-only --repeats 1 --jax-iterations 2 \
    --json "$OUT/bench_training_device.json" 2>&1 | tee "$OUT/bench_training.log"

ls -la "$OUT"
