#pragma once
// What each request carries: prompt text and lengths, prepared ahead of its
// send time. Pure logic (no sockets, no clocks): every output is a function of
// the configuration and its seed, so a run can be reproduced exactly.

#include "openloop/load/length_dist.hpp"
#include "openloop/load/prompt_builder.hpp"
#include "openloop/load/rag.hpp"
#include "openloop/load/trace_columns.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

struct trace_entry;  // trace.hpp
class conversation;  // session.hpp

// One request's content.
struct request_spec {
    std::string prompt;      // text (for chat: the user message content)
    std::vector<std::int32_t> prompt_ids;  // instead of text, under --tokenizer ids
    int input_tokens = 0;    // intended prompt tokens (file prompts: their words)
    int max_tokens = 0;      // output length asked
    std::int64_t at_ns = -1; // intended send time for trace sources, else -1
    int prefix_group = -1;   // shared-prefix group, -1 when none
    // A session's later turn: the messages before this one (not owned).
    const conversation* history = nullptr;
    // An agent's tool result: history is the whole message list (it ends with
    // the tool's message), no prompt of its own is sent.
    bool tool_result = false;
    // The run's --model entry this request goes to (an index into its model_mix; 0 when one).
    std::uint8_t model = 0;
    // Images and audio clips sent with the prompt (chat): indices into the run's media_set
    // (load/media.hpp). Cleared, not freed, when the spec's memory is reused.
    std::vector<std::uint32_t> media;
};

struct workload_config {
    // Synthetic prompts (used when no file or trace is given); parsed from
    // --input-len / --output-len by cli/, never read from text here.
    length_dist input_len = length_dist::fixed(512);
    length_dist output_len = length_dist::fixed(128);  // also for prompt files without a length
    // A shared prefix of prefix_len tokens, counted inside input_len; request i
    // takes group i mod prefix_groups (prefix_groups <= 0 means one group).
    int prefix_len = 0;
    int prefix_groups = 0;
    // Synthetic prompts: the unique part of request i is drawn for
    // unique_from + i, so runs that share a seed (a sweep's stages) still
    // never send the same prompt twice: a prefix-caching server would serve
    // a repeated prompt from its cache and report a capacity nobody gets.
    std::uint64_t unique_from = 0;
    // Retrieval-augmented prompts (rag.hpp): a shared template, k of a corpus's
    // documents, and a question of input_len tokens. Synthetic prompts only.
    rag_config rag;

    // At most one of these sources.
    // JSONL, one object per line: "prompt" (or "text") string, optional
    // integer "max_tokens" (or "output_len"). Blank lines are ignored.
    std::string prompts_file;
    // ShareGPT JSON: an array of {"conversations": [{"from", "value"}, ...]}.
    // Prompt = first human turn ("human"/"user"); max_tokens = word count of the
    // first reply after it ("gpt"/"assistant"/"chatgpt"/"bing"/"bard"), vLLM's
    // convention. Entries without such a pair or with an empty side are skipped.
    std::string sharegpt_file;
    // A trace (see trace.hpp): each request gets the entry's lengths, time
    // and prefix blocks.
    std::string trace_file;
    trace_format trace_kind = trace_format::auto_detect;
    std::optional<trace_columns> trace_mapping;  // a --trace-columns mapping instead of a format
    char trace_delimiter = 0;           // CSV delimiter; 0: detected
    bool trace_skip_bad_rows = false;
    double trace_speed = 1.0;           // > 1 replays faster
    double trace_rate = 0;              // > 0: the speed giving this mean rate (req/s)
    std::int64_t trace_start_ns = 0;    // window in trace time, before speed
    std::int64_t trace_end_ns = -1;     // -1: to the end
    std::size_t trace_max_requests = 0; // 0: no limit
    // Replay the selection lap after lap (the run's bounds end it); without,
    // the run sends each entry once (see runner.cpp's open loop).
    bool trace_loop = false;
    // Only the trace's requests (lengths, prompts, prefixes), lap after lap in
    // trace order; their send times come from the arrival schedule (vLLM's
    // burstgpt dataset). Entries asking for no output are skipped.
    bool trace_lengths_only = false;

    std::uint64_t seed = 0;
};

// What a trace source read and selected, for the run's report.
struct trace_info {
    std::string file;
    std::string format;        // mooncake, azure, burstgpt, openloop or columns
    std::string columns;       // the mapping read with, canonical (trace_columns.hpp)
    std::size_t rows = 0;      // rows read for the selection (trace.hpp: as far as it needs), before it
    std::size_t skipped_rows = 0;
    std::vector<std::size_t> skipped_lines;  // the first few skipped rows' lines
    std::string first_skipped;               // the first skipped row's error, FILE:LINE: ...
    // The selection: window in trace time, count, speed applied (computed
    // for a rate), looped or once; what it holds.
    std::int64_t start_ns = 0, end_ns = -1;
    std::size_t max_requests = 0;
    double speed = 1.0;
    double rate = 0;           // the rate asked for, 0: none
    bool loop = false;
    std::size_t requests = 0;  // entries selected
    double span_s = 0;         // first to last selected request, after speed
};

// The rules between a configuration's fields (one source at most; a shared
// prefix shorter than every prompt, synthetic prompts only; RAG prompts
// synthetic, without --prefix-len): throws input_error naming the flags.
// workload's constructor checks them; cli/ checks them first, with the flags.
void check_workload_config(const workload_config& config);

// The stderr line for a trace's skipped rows ("" when none): "openloop:
// trace FILE: skipped N bad rows (lines 4, 9, ...): first: FILE:4: ...".
std::string skipped_rows_warning(const trace_info& info);

// The request source. Synthetic sources are unbounded; file sources yield
// their items in a seeded permutation and start over after the last; trace
// sources yield entries in time order and loop with at_ns shifted by one
// period per lap (the span plus one mean gap), so a trace can drive a soak.
// Configuration and file errors throw (std::invalid_argument for bad
// values, std::runtime_error naming file and line for bad files).
class workload {
public:
    explicit workload(const workload_config& config);
    ~workload();
    workload(workload&&) noexcept;
    workload& operator=(workload&&) noexcept;

    // Request i's content, a function of the configuration and i alone: the
    // shards of a run (shard.hpp) build each request as one process would.
    // Into out, whose memory is reused: a run in its stride builds prompts
    // without allocating.
    void at(std::uint64_t index, request_spec& out);
    // Request i's send time from a trace source (at().at_ns without building
    // the prompt); -1 for other sources.
    std::int64_t trace_at_ns(std::uint64_t index) const;
    // A trace session's turn: entry entry's request after history_tokens of
    // conversation (trace_turn_request), as request index.
    void trace_turn(std::size_t entry, std::int64_t history_tokens, std::uint64_t index, request_spec& out) const;
    // The requests in turn from 0: at(0), at(1), ...
    request_spec next();

    // How synthetic and trace prompts turn lengths into content (default:
    // one word per token). Set before the first next().
    void set_prompt_builder(prompt_builder b);
    const prompt_builder& builder() const;
    // True when prompts come from a file, whose text is what it is.
    bool file_prompts() const;
    // The requests among the first `requests` (0: a sample of 100,000) that ask
    // for fewer input tokens than the prompt builder's floor (what the server
    // adds around every prompt: a long chat template, a system prompt), in
    // words that name the first: empty when none. Such a prompt is one word,
    // longer than asked.
    std::string below_floor(std::uint64_t requests) const;

    // Distinct items in a file or trace source; 0 for a synthetic source.
    std::size_t size() const;
    // Items a file or trace source dropped: ShareGPT entries without a usable
    // pair, or trace rows skipped as bad.
    std::size_t skipped() const;
    // A trace source's details (format empty for other sources).
    const trace_info& trace_details() const;
    // A trace source's selected entries in replay order (request i is entry
    // i % n); empty for other sources.
    const std::vector<trace_entry>& trace_entries() const;
    // One line for the run summary, e.g. "synthetic input=512 output=128".
    std::string describe() const;

private:
    struct state;
    std::unique_ptr<state> state_;
};

}  // namespace openloop
