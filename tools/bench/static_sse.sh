# Sourced by the benchmarks that need a server no one here wrote and that
# answers in tens of microseconds: Debian's nginx (nginx-light) serving a
# recorded vLLM-shaped chat stream as a static file, to POST too
# (error_page 405 =200 $uri), one worker, keep-alive without limit.
#   start_static_sse CHUNKS   -> sets static_url and static_dir; stopped on exit
#   machine_line              -> cores, CPU model, kernel, for the report
command -v nginx > /dev/null || { echo "benchmark: nginx is missing (apt-get install nginx-light)" >&2; exit 2; }

static_dir=$(mktemp -d)
static_url=
trap 'kill $(cat "$static_dir/nginx.pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$static_dir"' EXIT

start_static_sse() {
  local chunks=$1 port
  mkdir -p "$static_dir/www/v1/chat" "$static_dir/logs"
  python3 - "$chunks" > "$static_dir/www/v1/chat/completions" <<'PY'
import json, sys
n = int(sys.argv[1])
head = {"id": "chatcmpl-0", "object": "chat.completion.chunk", "created": 1733000000, "model": "m"}
def event(o):
    sys.stdout.write("data: " + json.dumps(o, separators=(",", ":")) + "\n\n")
event({**head, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "logprobs": None, "finish_reason": None}]})
for i in range(n):
    event({**head, "choices": [{"index": 0, "delta": {"content": " tok%d" % i}, "logprobs": None,
                                "finish_reason": None if i < n - 1 else "length"}]})
event({**head, "choices": [], "usage": {"prompt_tokens": 128, "total_tokens": 128 + n, "completion_tokens": n}})
sys.stdout.write("data: [DONE]\n\n")
PY
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  cat > "$static_dir/nginx.conf" <<CONF
worker_processes 1;
error_log $static_dir/logs/error.log warn;
pid $static_dir/nginx.pid;
events { worker_connections 65536; }
worker_rlimit_nofile 100000;
http {
  access_log off;
  keepalive_timeout 75s;
  keepalive_requests 1000000000;
  sendfile on;
  tcp_nodelay on;
  server {
    listen 127.0.0.1:$port backlog=65535;
    root $static_dir/www;
    location /v1/ { default_type text/event-stream; error_page 405 =200 \$uri; }
  }
}
CONF
  chmod -R a+rX "$static_dir"  # nginx's worker reads as nobody
  nginx -p "$static_dir" -c "$static_dir/nginx.conf" || { echo "benchmark: nginx did not start" >&2; exit 2; }
  for _ in $(seq 50); do [ -s "$static_dir/nginx.pid" ] && break; sleep 0.1; done
  static_url="http://127.0.0.1:$port"
}

machine_line() {
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(uname -sr)"
}
