#include "openloop/cli/endpoint_options.hpp"

#include "openloop/cli/usage.hpp"
#include "openloop/results/run_result.hpp"

#include <boost/program_options.hpp>

#include <string>

namespace openloop {

namespace po = boost::program_options;

po::options_description endpoint_options() {
    po::options_description endpoint("Endpoint", help_width, help_width / 2);
    endpoint.add_options()
        ("endpoint", po::value<std::string>()->default_value("chat"),
         "chat (/v1/chat/completions), completions (/v1/completions), responses (/v1/responses, OpenAI's Responses "
         "API: the prompt sent as \"input\" with max_output_tokens; its stream's output_text deltas time the "
         "tokens and response.completed gives the usage), embeddings (/v1/embeddings: the prompt sent as "
         "\"input\", never streamed; the run reports request rate, E2E latency and the server's prompt tokens, "
         "and generates no output tokens) or transcriptions (/v1/audio/transcriptions, speech to text: one "
         "made WAV clip per request as multipart/form-data, with --audios 1 and --audio-seconds; the clip's "
         "tokens are the prompt, the heard text the answer)")
        ("no-stream", po::bool_switch(),
         "send \"stream\": false: each answer is one JSON body with its usage. The run then has E2E latency "
         "(to the body's end), output tokens from usage, throughput and goodput on E2E, but no TTFT, TPOT or "
         "ITL: a streamed metric's SLO is refused");
    return endpoint;
}

void require_streamed(const run_options& o, std::string_view metric, std::string_view flag) {
    if (streams(o) || !stream_metric(metric)) return;
    const std::string why = o.endpoint == endpoint_kind::embeddings ? "embeddings are not streamed" : "--no-stream answers are not streamed";
    throw usage_error(std::string(flag) + " " + std::string(metric) + ": " + why +
                      ", so they have no TTFT, TTFA, TPOT or ITL; use e2e");
}

void fill_endpoint(const po::variables_map& vm, run_options& o) {
    const std::string endpoint = vm["endpoint"].as<std::string>();
    const auto kind = parse_endpoint(endpoint);
    if (!kind)
        throw usage_error("--endpoint must be chat, completions, responses, embeddings or transcriptions, got '" +
                          endpoint + "'");
    o.endpoint = *kind;
    o.stream = !vm["no-stream"].as<bool>();
    const bool embeddings = o.endpoint == endpoint_kind::embeddings;
    if (embeddings) {
        // Each of these shapes generation, which an embeddings request has none of.
        for (const char* flag : {"output-len", "ignore-eos", "temperature", "sampling-seed", "no-continuous-usage"}) {
            if (vm.count(flag) && !vm[flag].defaulted())
                throw usage_error(std::string("--") + flag + " shapes generated output; --endpoint embeddings "
                                  "generates none (its requests carry only the model and the input)");
        }
    } else if (o.endpoint == endpoint_kind::transcriptions) {
        // A transcription's form carries the clip, the model and the stream fields only.
        for (const char* flag : {"input-len", "output-len", "ignore-eos", "temperature", "sampling-seed", "extra-body"}) {
            if (vm.count(flag) && !vm[flag].defaulted())
                throw usage_error(std::string("--") + flag + ": --endpoint transcriptions sends only the clip, the "
                                  "model and the stream fields; the answer is as long as the clip's speech");
        }
    }
    if (!o.system_prompt.empty() && o.endpoint != endpoint_kind::chat)
        throw usage_error("--system-prompt needs --endpoint chat: a system message is one of a chat request's messages");
    if (!o.stream && vm["no-continuous-usage"].as<bool>()) {
        throw usage_error("--no-continuous-usage asks a stream for less usage; with --no-stream there is no stream");
    } else if (o.endpoint == endpoint_kind::responses && vm["no-continuous-usage"].as<bool>()) {
        throw usage_error("--no-continuous-usage asks a stream for less usage; a Responses stream has no stream "
                          "options: its usage comes once, in response.completed");
    }
    if (!streams(o) && o.log_chunk_gaps)
        throw usage_error("--log-chunk-gaps lists the gaps between a stream's chunks; answers that are not "
                          "streamed have none");
    if (o.slo.ttft_ms >= 0) require_streamed(o, "ttft", "--goodput");
    if (o.slo.ttfa_ms >= 0) require_streamed(o, "ttfa", "--goodput");
    if (o.slo.tpot_ms >= 0) require_streamed(o, "tpot", "--goodput");
    if (o.slo.itl_ms >= 0) require_streamed(o, "itl", "--goodput");
}

}  // namespace openloop
