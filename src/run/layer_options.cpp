#include "openloop/run/layer_options.hpp"

#include "openloop/base/random.hpp"

#include <algorithm>
#include <cstdlib>

namespace openloop {

std::string api_base(const target_url& target) { return target.base_path.empty() ? "/v1" : target.base_path; }

client_options client_options_for(const run_options& o) {
    client_options co;
    co.target = o.target;
    co.path = api_base(co.target) + std::string(endpoint_path(o.endpoint));
    co.streamed = streams(o);
    co.thinking_parser = o.thinking_parser;
    if (o.endpoint == endpoint_kind::transcriptions)
        co.content_type = "multipart/form-data; boundary=" + std::string(multipart_boundary);
    co.headers = o.headers;
    co.trace_key = mix64(o.workload.seed);
    for (const char c : o.request_id_prefix) co.trace_key = mix64(co.trace_key ^ static_cast<unsigned char>(c));
    if (const char* key = std::getenv(o.api_key_env.c_str()); key && *key)
        co.headers.emplace_back("Authorization", std::string("Bearer ") + key);
    co.ca_file = o.ca_file;
    co.insecure = o.insecure;
    co.connect_timeout = o.connect_timeout;
    co.first_token_timeout = o.first_token_timeout;
    co.idle_timeout = o.idle_timeout;
    co.total_timeout = o.total_timeout;
    co.max_body = o.max_body;
    co.spare_connections = o.concurrency > 0 ? 0 : std::min(o.spare_connections, o.max_inflight);
    co.keep_alive_idle = o.keep_alive_idle;
    return co;
}

body_options body_options_for(const run_options& o, std::shared_ptr<const media_set> media) {
    body_options b;
    b.endpoint = o.endpoint;
    b.stream = o.stream;
    b.ignore_eos = o.ignore_eos;
    b.temperature = o.temperature;
    b.sampling_seed = o.sampling_seed;
    b.continuous_usage = o.continuous_usage;
    b.extra_body = o.extra_body;
    b.system_prompt = o.system_prompt;
    if (o.tools.enabled()) {
        b.tools = tool_schemas(o.tools.count, o.tools.schema_len, o.workload.seed);
        b.tool_choice = tool_choice_value(o.tools.choice);
    }
    b.response_format = o.response_format;
    b.reasoning_effort = o.reasoning_effort;
    b.media = std::move(media);
    return b;
}

reporter_options reporter_options_for(const run_options& o, const model_mix& models, const session_plan* sessions) {
    reporter_options ro;
    ro.out_dir = o.out_dir;
    ro.progress = o.progress;
    ro.request_id_prefix = o.request_id_prefix;
    ro.chunk_gaps = o.log_chunk_gaps;
    ro.slo = o.slo;
    ro.steady_throughput = o.steady_throughput;
    ro.session_stride = sessions ? sessions->stride() : 0;
    ro.generates = o.endpoint != endpoint_kind::embeddings;
    ro.soak_window = o.soak_window;
    ro.window_lines = o.window_lines;
    ro.live = o.live.get();
    ro.live_label = o.live_label.empty() ? "run" : o.live_label;
    // Per-model output only in a mixed run; bucket labels for the media breakdown and log.
    if (models.mixed())
        for (const model_share& m : models.models()) ro.model_names.push_back(m.name);
    for (const image_bucket& b : o.media.image_sizes) ro.bucket_labels.push_back(b.label());
    // Any media asked (made images, --image-dir, clips): the breakdown counts the run's requests
    // from the first, text-only ones included, not from its first media event.
    ro.media = o.media.wanted();
    return ro;
}

}  // namespace openloop
