#include "openloop/load/workload.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/base/quantity.hpp"
#include "openloop/base/random.hpp"
#include "openloop/load/prompt_files.hpp"
#include "openloop/load/rag.hpp"
#include "openloop/load/trace.hpp"
#include "openloop/load/trace_sessions.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

namespace openloop {
namespace {

constexpr std::uint64_t prefix_salt = 0x3c6ef372fe94f82bULL;
constexpr std::uint64_t unique_salt = 0xa54ff53a5f1d36f1ULL;
constexpr std::uint64_t order_salt = 0x510e527fade682d1ULL;
constexpr std::uint64_t length_salt = 0x9b05688c2b3e6c1fULL;

// Request i's own stream of lengths: its input length is the first draw.
request_rng lengths_of(const workload_config& c, std::uint64_t i) {
    return request_rng(mix64(mix64(c.seed ^ length_salt) ^ (c.unique_from + i)));
}

}  // namespace

struct workload::state {
    enum class source { synthetic, prompts, sharegpt, trace };

    workload_config config;
    source kind = source::synthetic;
    length_dist input, output;
    std::uint64_t index = 0;  // next()'s next request
    std::size_t skipped = 0;
    prompt_builder builder;

    std::vector<file_item> items;
    std::vector<std::size_t> order;  // seeded permutation of items

    std::optional<rag_corpus> rag;
    std::vector<int> docs;  // the documents of the request being built

    std::vector<trace_entry> entries;
    trace_info trace;
    std::int64_t period_ns = 0;  // shift of at_ns per lap over the trace
};

void check_workload_config(const workload_config& config) {
    const int sources = int(!config.prompts_file.empty()) + int(!config.sharegpt_file.empty()) +
                        int(!config.trace_file.empty());
    if (sources > 1) throw input_error("give at most one of --prompts, --sharegpt and --trace");
    if (config.prefix_len < 0) throw input_error("--prefix-len must be >= 0");
    if (config.prefix_len > 0 && sources > 0)
        throw input_error("--prefix-len applies to synthetic prompts only, not to prompt files or traces");
    if (config.prefix_len > 0 && config.prefix_len >= config.input_len.max())
        throw input_error("--prefix-len (" + std::to_string(config.prefix_len) +
                          ") must be less than the largest --input-len (" + config.input_len.describe() +
                          "): the prefix is counted inside the input length");
    if (config.rag.enabled()) {
        if (sources > 0) throw input_error("--rag-docs builds synthetic prompts: drop --prompts, --sharegpt or --trace");
        if (config.prefix_len > 0) throw input_error("--rag-docs has its own shared parts: drop --prefix-len");
    }
}

workload::workload(const workload_config& config) : state_(std::make_unique<state>()) {
    state& s = *state_;
    s.config = config;
    s.input = config.input_len;
    s.output = config.output_len;
    check_workload_config(config);
    if (config.rag.enabled()) s.rag.emplace(config.rag);
    if (!config.prompts_file.empty()) {
        s.kind = state::source::prompts;
        s.items = load_prompts(config.prompts_file);
    } else if (!config.sharegpt_file.empty()) {
        s.kind = state::source::sharegpt;
        s.items = load_sharegpt(config.sharegpt_file, s.skipped);
    } else if (!config.trace_file.empty()) {
        s.kind = state::source::trace;
        trace_parse_options options;
        options.format = config.trace_kind;
        options.columns = config.trace_mapping;
        options.delimiter = config.trace_delimiter;
        options.skip_bad_rows = config.trace_skip_bad_rows;
        trace_selection& selection = options.selection;
        selection.start_ns = config.trace_start_ns;
        selection.end_ns = config.trace_end_ns;
        selection.max_count = config.trace_max_requests;
        selection.speed = config.trace_speed;
        selection.rate = config.trace_rate;
        trace t = load_trace(config.trace_file, options);
        s.skipped = t.skipped_rows;
        trace_info& info = s.trace;
        info = {config.trace_file, std::string(to_string(t.format)), to_string(t.columns), t.rows_read,
                t.skipped_rows, t.skipped_lines, t.first_skipped};
        info.start_ns = selection.start_ns;
        info.end_ns = selection.end_ns;
        info.max_requests = selection.max_count;
        info.rate = selection.rate;
        info.loop = config.trace_loop;
        trace_pick pick;
        try {
            pick = pick_trace(std::move(t.entries), selection);
        } catch (const std::invalid_argument& e) {
            throw input_error(config.trace_file + ": --rate: " + e.what());
        }
        s.entries = std::move(pick.entries);
        if (config.trace_lengths_only) {
            // A request for no output measures nothing (BurstGPT logs failures as 0 response tokens).
            const std::size_t before = s.entries.size();
            std::erase_if(s.entries, [](const trace_entry& e) { return e.output_tokens < 1; });
            s.skipped += before - s.entries.size();
        }
        info.speed = pick.speed;
        if (s.entries.empty()) throw input_error(config.trace_file + ": no requests in the selected window");
        info.requests = s.entries.size();
        info.span_s = double(s.entries.back().at_ns - s.entries.front().at_ns) / 1e9;
        if (const std::string warning = skipped_rows_warning(info); !warning.empty())
            std::fprintf(stderr, "%s\n", warning.c_str());
        // One mean gap after the last request, so that lap after lap keeps the
        // selection's mean rate (the rate --rate or a sweep stage scaled it to);
        // a selection whose requests share one time laps once a second.
        const std::int64_t last = s.entries.back().at_ns;
        const auto n = std::int64_t(s.entries.size());
        const std::int64_t period = n > 1 ? last + last / (n - 1) : 0;
        s.period_ns = period > 0 ? period : 1'000'000'000;
    }

    if (!s.items.empty()) {
        // Fisher-Yates on our own sampler: std::shuffle differs between libraries.
        std::mt19937_64 order_rng(mix64(config.seed ^ order_salt));
        s.order.resize(s.items.size());
        for (std::size_t i = 0; i < s.order.size(); ++i) s.order[i] = i;
        for (std::size_t i = s.order.size(); i > 1; --i) std::swap(s.order[i - 1], s.order[below(order_rng, i)]);
    }
}

workload::~workload() = default;
workload::workload(workload&&) noexcept = default;
workload& workload::operator=(workload&&) noexcept = default;

request_spec workload::next() {
    request_spec spec;
    at(state_->index++, spec);
    return spec;
}

std::int64_t workload::trace_at_ns(std::uint64_t i) const {
    const state& s = *state_;
    if (s.kind != state::source::trace) return -1;
    const std::uint64_t n = s.entries.size();
    return s.entries[i % n].at_ns + std::int64_t(i / n) * s.period_ns;
}

void workload::at(std::uint64_t i, request_spec& spec) {
    state& s = *state_;
    const workload_config& c = s.config;
    request_rng rng = lengths_of(c, i);
    spec.prompt.clear();
    spec.prompt_ids.clear();
    spec.at_ns = -1;
    spec.prefix_group = -1;
    switch (s.kind) {
        case state::source::synthetic: {
            spec.input_tokens = s.input.sample(rng);
            spec.max_tokens = s.output.sample(rng);
            if (s.rag) {  // input_len is the question's
                s.rag->retrieve(c.seed, c.unique_from + i, s.docs);
                s.rag->build(s.docs, spec.input_tokens, c.seed, c.unique_from + i, s.builder, spec);
                break;
            }
            // At least one unique word, so requests of a group differ.
            if (c.prefix_len > 0) spec.input_tokens = std::max(spec.input_tokens, c.prefix_len + 1);
            prompt_layout layout(s.builder, spec.prompt, spec.prompt_ids, spec.input_tokens);
            if (c.prefix_len > 0) {
                spec.prefix_group = int(i % std::uint64_t(std::max(c.prefix_groups, 1)));
                layout.segment(c.prefix_len, mix64(mix64(c.seed ^ prefix_salt) ^ std::uint64_t(spec.prefix_group)));
            }
            layout.rest(mix64(mix64(c.seed ^ unique_salt) ^ (c.unique_from + i)));
            break;
        }
        case state::source::prompts:
        case state::source::sharegpt: {
            const file_item& item = s.items[s.order[i % s.items.size()]];
            spec.prompt = item.prompt;
            spec.input_tokens = item.input_tokens;
            spec.max_tokens = item.max_tokens > 0 ? item.max_tokens : s.output.sample(rng);
            break;
        }
        case state::source::trace: {
            const std::uint64_t n = s.entries.size();
            trace_request(s.entries[i % n], c.seed, i, s.builder, spec);
            spec.at_ns = trace_at_ns(i);
            break;
        }
    }
}

void workload::trace_turn(std::size_t entry, std::int64_t history_tokens, std::uint64_t index,
                          request_spec& out) const {
    trace_turn_request(state_->entries.at(entry), history_tokens, state_->config.seed, index, state_->builder, out);
}

std::size_t workload::size() const {
    return state_->kind == state::source::trace ? state_->entries.size() : state_->items.size();
}

std::size_t workload::skipped() const { return state_->skipped; }

const trace_info& workload::trace_details() const { return state_->trace; }

std::string skipped_rows_warning(const trace_info& info) {
    if (info.skipped_rows == 0) return {};
    std::string lines;
    for (std::size_t line : info.skipped_lines) lines += (lines.empty() ? "" : ", ") + std::to_string(line);
    if (info.skipped_rows > info.skipped_lines.size()) lines += ", ...";
    return "openloop: trace " + info.file + ": skipped " + std::to_string(info.skipped_rows) + " bad row" +
           (info.skipped_rows == 1 ? "" : "s") + " (line" + (info.skipped_lines.size() == 1 ? " " : "s ") + lines +
           "): first: " + info.first_skipped;
}

const std::vector<trace_entry>& workload::trace_entries() const { return state_->entries; }

void workload::set_prompt_builder(prompt_builder b) { state_->builder = std::move(b); }

const prompt_builder& workload::builder() const { return state_->builder; }

bool workload::file_prompts() const {
    return state_->kind == state::source::prompts || state_->kind == state::source::sharegpt;
}

std::string workload::below_floor(std::uint64_t requests) const {
    const state& s = *state_;
    const workload_config& c = s.config;
    const int floor = s.builder.floor();
    const bool synthetic = s.kind == state::source::synthetic && !s.rag;
    if (floor <= 1 || (!synthetic && s.kind != state::source::trace)) return {};
    const std::string costs = "fewer than the " + std::to_string(floor) + " tokens the server adds around every prompt " +
                              "(tokenizer " + s.builder.label() + ")";
    if (synthetic && c.prefix_len > 0 && c.prefix_len < floor)
        return "--prefix-len " + std::to_string(c.prefix_len) + " is " + costs +
               ": every prompt's shared prefix runs a word past it, and no prompt is counted exact";
    const std::uint64_t n = s.kind == state::source::trace ? s.entries.size()
                                                           : requests > 0 ? std::min<std::uint64_t>(requests, 1'000'000)
                                                                          : 100'000;
    if (synthetic && s.input.min() >= floor) return {};
    std::uint64_t short_ones = 0, first = 0;
    int first_tokens = 0;
    for (std::uint64_t i = 0; i < n; ++i) {
        request_rng rng = lengths_of(c, i);
        const int tokens = synthetic ? s.input.sample(rng) : s.entries[i].input_tokens;  // a trace's laps repeat it
        if (tokens >= floor) continue;
        if (short_ones++ == 0) {
            first = i;
            first_tokens = tokens;
        }
    }
    if (short_ones == 0) return {};
    const std::string where = synthetic ? "--input-len " + s.input.describe() : "--trace " + c.trace_file;
    return "request " + std::to_string(first) + " asks for " + std::to_string(first_tokens) + " input tokens (" + where +
           "), " + costs + ": it is sent as one word of " + std::to_string(floor) + " tokens and counted inexact, as are " +
           std::to_string(short_ones - 1) + " more of the " + (s.kind == state::source::trace ? "trace's " : "first ") +
           std::to_string(n) + " requests";
}

std::string workload::describe() const {
    const state& s = *state_;
    const workload_config& c = s.config;
    std::string out;
    switch (s.kind) {
        case state::source::synthetic:
            out = "synthetic input=" + s.input.describe() + " output=" + s.output.describe();
            if (c.prefix_len > 0)
                out += " prefix=" + std::to_string(c.prefix_len) + " groups=" + std::to_string(std::max(c.prefix_groups, 1));
            if (c.rag.enabled())
                out = "rag template=" + std::to_string(c.rag.template_tokens) + " docs=" + std::to_string(c.rag.k) +
                      "x" + std::to_string(c.rag.doc_tokens) + " of " + std::to_string(c.rag.docs) +
                      " zipf=" + shortest_text(c.rag.zipf) + " question=" + s.input.describe() +
                      " output=" + s.output.describe();
            break;
        case state::source::prompts:
            out = "prompts file=" + c.prompts_file + " items=" + std::to_string(s.items.size()) +
                  " output=" + s.output.describe();
            break;
        case state::source::sharegpt:
            out = "sharegpt file=" + c.sharegpt_file + " items=" + std::to_string(s.items.size()) +
                  " skipped=" + std::to_string(s.skipped);
            break;
        case state::source::trace:
            out = "trace file=" + c.trace_file + " format=" + s.trace.format;
            if (s.trace.format == "columns") out += " columns=" + s.trace.columns;
            out += " requests=" + std::to_string(s.entries.size()) + " skipped=" + std::to_string(s.skipped);
            if (c.trace_start_ns > 0) out += " from=" + shortest_text(double(c.trace_start_ns) / 1e9) + "s";
            if (c.trace_end_ns >= 0) out += " to=" + shortest_text(double(c.trace_end_ns) / 1e9) + "s";
            if (c.trace_max_requests > 0) out += " max=" + std::to_string(c.trace_max_requests);
            char speed[32];  // a speed from --rate has every digit of a quotient
            std::snprintf(speed, sizeof speed, "%.4g", s.trace.speed);
            out += std::string(" speed=") + speed;
            if (c.trace_rate > 0) out += " rate=" + shortest_text(c.trace_rate);
            out += c.trace_loop ? " loop" : " once";
            break;
    }
    return out + " seed=" + std::to_string(c.seed);
}

}  // namespace openloop
