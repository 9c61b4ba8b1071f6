#!/usr/bin/env bash
# Every GPU measurement of the device work, in one call of a lent machine (an H100 or H200 with the
# CUDA build of jax; nothing to download there: the Python packages it lacks travel as wheels in
# .whl/, see .library's device notes). The whole script keeps to TOTAL_S seconds: each part has its
# own limit, so a slow part costs only its own figures, and the self-play run, last, takes the time
# left. The logs and result files go to $OUT (default /tmp/device_check; seven files). JAX's compile
# cache lives in /tmp/ckc-jax-cache for the whole script (CKC_COMPILE_CACHE): a program compiled by
# one part is read back by the next. The checkout travels whole and must stay under the device tool's
# 64 MiB: empty the checkpoints' SB3 zips for the call (`for f in $(git ls-files 'checkpoints/*.zip');
# do : >"$f"; done`, nothing here reads them) and `git checkout -- checkpoints` after.
#
#   bash benchmarks/device_check.sh                     # about 9.5 minutes (run with timeout_s 590)
#
# 1. benchmarks/bench_training.py's one-decision-per-step loop at a GPU's batch (65,536 games):
#    learner decisions/s in self-play and against four bayes_v1 (on an H200 it compiles each for
#    about 50 s: the first call's 170 s measured self-play alone).
# 2. benchmarks/bench_jax.py: the JAX engine's random play and bayes_v1 tables at B = 4,096, 65,536
#    and 262,144 (the NumPy reference at 4,096), beside Pgx's sparrow_mahjong on the same GPU.
# 3. Self-play from scratch (configs/train/self_play_jax_gpu.yaml: the learner at every seat of
#    16,384 games, one decision of every game per step) for the time left: its evaluations (win rate
#    against four bayes_v1 and four random, paired with bayes_v2 in the learner's seat) by steps and
#    wall time, its learner decisions/s, its compile times (the log, the run folder's files).
set -uo pipefail
OUT="${OUT:-/tmp/device_check}"
mkdir -p "$OUT"
TOTAL_S="${TOTAL_S:-560}"
BENCH_S="${BENCH_S:-190}"
ENGINE_S="${ENGINE_S:-140}"
BENCH_ENVS="${BENCH_ENVS:-65536}"
START=$(date +%s)
left() { echo $((TOTAL_S - $(date +%s) + START)); }
export PYTHONUNBUFFERED=1
export CKC_COMPILE_CACHE="${CKC_COMPILE_CACHE:-/tmp/ckc-jax-cache}"
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

# 1. the trainer's one-decision loop at a GPU's batch
timeout "$BENCH_S" python3 benchmarks/bench_training.py --jax-only --jax-loop decision --jax-num-envs "$BENCH_ENVS" \
    --only "jax decisions, self-play" "jax decisions vs 4 bayes_v1" \
    --repeats 1 --jax-iterations 2 --json "$OUT/bench_training_device.json" 2>&1 | tee "$OUT/bench_training.log"

# 2. the JAX engine at large batches (random play and bayes_v1 tables; Pgx's games beside them)
timeout "$ENGINE_S" python3 benchmarks/bench_jax.py --batches 4096 65536 262144 --loops random bayes_v1 \
    --repeats 2 --seconds 1 --numpy-max-batch 4096 --json "$OUT/bench_jax_device.json" 2>&1 | tee "$OUT/bench_jax.log"

# 3. self-play from scratch, on the clock: the time left, less a little for the folder's copy
# (a new folder each time: an earlier run is never touched)
RUN="${RUN:-runs/self_play_jax_gpu_$(date -u +%Y%m%dT%H%M%S)}"
mkdir -p runs
if [ "$(left)" -lt 60 ]; then echo "no time left for self-play ($(left) s)"; ls -la "$OUT"; exit 0; fi
timeout "$(($(left) - 15))" python3 -m ckc_env.training.commands.train configs/train/self_play_jax_gpu.yaml \
    --run-dir "$RUN" --no-progress 2>&1 | tee "$OUT/self_play.log"
tar czf "$OUT/self_play_jax_gpu.tar.gz" --exclude=tensorboard --exclude="train_state*" --exclude="latest_model*" \
    -C "$(dirname "$RUN")" "$(basename "$RUN")"
echo "run folder: $RUN"
ls -la "$OUT"
