#!/usr/bin/env bash
# Every GPU measurement of the device work, in one call of a lent machine (an H100 or H200 with the
# CUDA build of jax; nothing to download there: the Python packages it lacks travel as wheels in
# .whl/, see .library's device notes). Each part has its own time limit, so a slow part costs only
# its own figures; the logs and result files go to $OUT (default /tmp/device_check). JAX's compile
# cache lives in $OUT/jax-cache for the whole script (CKC_COMPILE_CACHE): a program compiled by one
# part is read back by the next.
#
#   bash benchmarks/device_check.sh                     # about 10 minutes
#
# 1. Self-play from scratch on the device (configs/train/self_play_jax.yaml: the learner at every
#    seat, one decision of every game per step) for SELF_PLAY_S seconds: its evaluations (win rate
#    against four bayes_v1 and four random, paired with bayes_v2 in the learner's seat) by steps and
#    wall time, its learner decisions/s, and its compile times (summary.json, the log).
# 2. benchmarks/bench_training.py's device path, both loops (the learner's view and one decision per
#    step): learner steps/s against four random and four bayes_v1, in self-play, and the
#    environments alone.
# 3. benchmarks/bench_jax.py: the JAX engine's random play and bayes_v1 tables at B = 4,096 to
#    262,144 (the NumPy reference up to 65,536), beside Pgx's sparrow_mahjong on the same GPU.
# 4. benchmarks/bench_table_step.py: where a step of the table's view goes there (against four
#    bayes_v1, 2048 games).
set -uo pipefail
OUT="${OUT:-/tmp/device_check}"
mkdir -p "$OUT"
SELF_PLAY_S="${SELF_PLAY_S:-240}"
BENCH_S="${BENCH_S:-180}"
ENGINE_S="${ENGINE_S:-120}"
STEP_S="${STEP_S:-90}"
export PYTHONUNBUFFERED=1
export CKC_COMPILE_CACHE="$OUT/jax-cache"
mkdir -p -m 700 "$CKC_COMPILE_CACHE"

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

# 1. self-play from scratch, on the clock
# (a new folder each time: an earlier run is never touched)
RUN="${RUN:-runs/self_play_jax_device_$(date -u +%Y%m%dT%H%M%S)}"
mkdir -p runs
timeout "$SELF_PLAY_S" python3 -m ckc_env.training.commands.train configs/train/self_play_jax.yaml \
    --run-dir "$RUN" --no-progress 2>&1 | tee "$OUT/self_play.log"
tar czf "$OUT/self_play_jax_device.tar.gz" --exclude=tensorboard --exclude="train_state*" --exclude="latest_model*" \
    -C "$(dirname "$RUN")" "$(basename "$RUN")"
echo "run folder: $RUN"

# 2. the training benchmark's device path, both loops
timeout "$BENCH_S" python3 benchmarks/bench_training.py --jax-only --jax-loop both --repeats 1 --jax-iterations 2 \
    --json "$OUT/bench_training_device.json" 2>&1 | tee "$OUT/bench_training.log"

# 3. the JAX engine at large batches (random play and bayes_v1 tables; Pgx's games beside them)
timeout "$ENGINE_S" python3 benchmarks/bench_jax.py --batches 4096 16384 65536 262144 --loops random bayes_v1 \
    --repeats 2 --seconds 1 --json "$OUT/bench_jax_device.json" 2>&1 | tee "$OUT/bench_jax.log"

# 4. the parts of a table step
timeout "$STEP_S" python3 benchmarks/bench_table_step.py --json "$OUT/bench_table_step_device.json" 2>&1 \
    | tee "$OUT/bench_table_step.log"

ls -la "$OUT"
