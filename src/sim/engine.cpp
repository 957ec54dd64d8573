#include "openloop/sim/engine.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

namespace openloop {
namespace {

// Public figures behind the presets are in docs/cost-model.md.
cost_model h100_8b() {
    cost_model m;
    m.name = "h100-8b";
    m.step_base_ms = 6.0;        // 16 GB of bf16 weights at 3.35 TB/s = 4.8 ms, plus launch/sampling
    m.prefill_token_ms = 0.035;  // 16 GFLOP/token at ~45 % of 990 TFLOP/s
    m.decode_seq_ms = 0.03;      // the same matmul FLOPs per token, a little better batched
    m.kv_token_ms = 4e-5;        // 128 KiB of K,V per token at 3.35 TB/s
    m.max_num_seqs = 256;
    m.max_batched_tokens = 8192;
    m.kv_capacity_tokens = 430'000;  // (0.9 x 80 GB - 16 GB) / 128 KiB
    m.max_model_len = 32768;
    // A Qwen2-VL-sized ViT (675M parameters): a merged token is 4 patches of
    // 1.35 GFLOP = 5.4 GFLOP at ~45 % of 990 TFLOP/s; 1 ms to resize and launch.
    m.media_encode_ms = 1.0;
    m.media_encode_token_ms = 0.012;
    return m;
}

cost_model cpu_small() {
    cost_model m;
    m.name = "cpu-small";
    m.step_base_ms = 20.0;
    m.prefill_token_ms = 0.05;
    m.decode_seq_ms = 2.0;
    m.kv_token_ms = 0.001;
    m.max_num_seqs = 8;
    m.max_batched_tokens = 512;
    m.kv_capacity_tokens = 16384;
    m.max_model_len = 4096;
    m.media_encode_ms = 5.0;
    m.media_encode_token_ms = 0.02;
    return m;
}

cost_model firehose() {
    cost_model m;
    m.name = "firehose";
    m.max_num_seqs = 1 << 20;
    m.max_batched_tokens = 1 << 30;
    m.kv_capacity_tokens = std::int64_t{1} << 40;
    m.max_model_len = 1 << 30;
    // A cache sized by that KV capacity would grow for the whole of a soak.
    m.prefix_cache = false;
    m.firehose = true;
    return m;
}

// Full prompt blocks of a request: hashes past the prompt cannot be cached.
std::size_t prompt_blocks(const seq_request& r, int block_size) {
    const auto full = static_cast<std::size_t>(r.prompt_tokens / block_size);
    return std::min(r.block_hashes.size(), full);
}

}  // namespace

std::optional<cost_model> find_preset(std::string_view name) {
    if (name == "h100-8b") return h100_8b();
    if (name == "cpu-small") return cpu_small();
    if (name == "firehose") return firehose();
    return std::nullopt;
}

std::vector<std::string> preset_names() { return {"h100-8b", "cpu-small", "firehose"}; }

engine::engine(cost_model model) : model_(std::move(model)), loras_(model_.max_loras) {
    // Degenerate limits would stall the scheduler forever rather than fail.
    model_.max_num_seqs = std::max(1, model_.max_num_seqs);
    model_.max_batched_tokens = std::max(1, model_.max_batched_tokens);
    model_.block_size = std::max(1, model_.block_size);
    model_.tokens_per_step = std::max(1, model_.tokens_per_step);
    model_.kv_capacity_tokens = std::max<std::int64_t>(1, model_.kv_capacity_tokens);
    if (model_.prefix_cache)
        cache_capacity_blocks_ = static_cast<std::size_t>(model_.kv_capacity_tokens / model_.block_size);
    running_.reserve(static_cast<std::size_t>(std::min(model_.max_num_seqs, 4096)));
}

void engine::add(seq_request r) {
    // A sequence computes at least one prompt token and yields at least one token.
    r.prompt_tokens = std::max(1, r.prompt_tokens);
    r.output_tokens = std::max(1, r.output_tokens);
    waiting_.push_back(seq{std::move(r)});
}

void engine::abort(std::uint64_t id) {
    auto same = [id](const seq& s) { return s.req.id == id; };
    if (auto it = std::find_if(running_.begin(), running_.end(), same); it != running_.end()) {
        kv_reserved_ -= it->req.prompt_tokens + it->req.output_tokens;
        loras_.end(it->req.adapter);
        running_.erase(it);  // erase, not swap: the batch stays in admission order
        return;
    }
    if (auto it = std::find_if(waiting_.begin(), waiting_.end(), same); it != waiting_.end())
        waiting_.erase(it);
}

int engine::lookup_prefix(const seq_request& r) {
    if (cache_capacity_blocks_ == 0) return 0;
    const std::size_t blocks = prompt_blocks(r, model_.block_size);
    cache_queries_ += static_cast<std::int64_t>(blocks);
    std::size_t hits = 0;
    // Hashes are chained, so only a leading run of hits is a usable prefix.
    for (; hits < blocks; ++hits) {
        auto it = cached_blocks_.find(r.block_hashes[hits]);
        if (it == cached_blocks_.end()) break;
        lru_.splice(lru_.begin(), lru_, it->second);
    }
    cache_hits_ += static_cast<std::int64_t>(hits);
    // The last prompt token is always computed: its logits give the first output token.
    const auto cached = static_cast<std::int64_t>(hits) * model_.block_size;
    return static_cast<int>(std::min<std::int64_t>(cached, r.prompt_tokens - 1));
}

void engine::insert_prefix(const seq_request& r, int computed) {
    if (cache_capacity_blocks_ == 0) return;
    const std::size_t blocks = std::min(prompt_blocks(r, model_.block_size),
                                        static_cast<std::size_t>(computed / model_.block_size));
    for (std::size_t i = 0; i < blocks; ++i) {
        const std::uint64_t h = r.block_hashes[i];
        if (auto it = cached_blocks_.find(h); it != cached_blocks_.end()) {
            lru_.splice(lru_.begin(), lru_, it->second);
        } else if (cached_blocks_.size() < cache_capacity_blocks_) {
            lru_.push_front(h);
            cached_blocks_.emplace(h, lru_.begin());
        } else {
            // Full: recycle the least recently used entry's list and map nodes
            // so a warm cache allocates nothing.
            auto node = cached_blocks_.extract(lru_.back());
            lru_.back() = h;
            lru_.splice(lru_.begin(), lru_, std::prev(lru_.end()));
            node.key() = h;
            node.mapped() = lru_.begin();
            cached_blocks_.insert(std::move(node));
        }
    }
}

void engine::admit() {
    const auto max_seqs = static_cast<std::size_t>(model_.max_num_seqs);
    for (auto it = waiting_.begin(); it != waiting_.end() && running_.size() < max_seqs;) {
        seq& head = *it;
        // A request whose adapter would be one too many in the batch waits; those after it pass.
        if (!loras_.fits(head.req.adapter)) {
            ++it;
            continue;
        }
        const std::int64_t need = head.req.prompt_tokens + head.req.output_tokens;
        // Head-of-line FIFO as in vLLM. An empty engine takes even a request
        // larger than the whole cache, so such a request cannot wedge the queue.
        if (kv_reserved_ + need > model_.kv_capacity_tokens && !running_.empty()) break;
        kv_reserved_ += need;
        prompt_total_ += head.req.prompt_tokens;
        if (loras_.start(head.req.adapter)) load_ms_ += model_.lora_load_ms;
        running_.push_back(std::move(head));
        it = waiting_.erase(it);
    }
}

void engine::finish(const seq& s) {
    kv_reserved_ -= s.req.prompt_tokens + s.req.output_tokens;
    loras_.end(s.req.adapter);
    // Freed blocks stay cached, most recently used.
    insert_prefix(s.req, s.req.prompt_tokens);
}

step_result engine::step() {
    step_result res;
    admit();
    if (running_.empty()) return res;
    res.out.reserve(running_.size());

    int budget = model_.max_batched_tokens;
    // Decodes first (one budget token each), as vLLM's scheduler does, so that
    // a long prompt arriving never stalls the streams already running.
    for (seq& s : running_) {
        if (!s.first_emitted) continue;
        if (budget == 0) break;
        --budget;
        ++res.decode_seqs;
        res.kv_tokens_read += s.req.prompt_tokens + s.generated;
        const int n = std::min(model_.tokens_per_step, s.req.output_tokens - s.generated);
        s.generated += n;
        res.out.push_back({s.req.id, n, s.generated == s.req.output_tokens, 0});
    }
    // Then chunked prefill in admission order with what is left.
    for (seq& s : running_) {
        if (s.first_emitted) continue;
        if (budget == 0) break;
        // As vLLM's v1 scheduler: a request looks for its prefix when it is
        // first scheduled, and the blocks a step will compute are cached as
        // they are scheduled, so a request scheduled after another in the
        // same step already finds that one's prefix.
        if (!s.looked_up) {
            s.looked_up = true;
            s.cached = lookup_prefix(s.req);
            s.prefilled = s.cached;
            // The encoder runs before the prompt's first chunk, unless all the media is cached.
            if (s.req.media_items > 0 && s.cached < s.req.media_end) {
                res.encoded_items += s.req.media_items;
                res.encoded_tokens += s.req.media_tokens;
            }
        }
        const int chunk = std::min(s.req.prompt_tokens - s.prefilled, budget);
        budget -= chunk;
        res.prefill_tokens += chunk;
        s.prefilled += chunk;
        insert_prefix(s.req, s.prefilled);
        // The chunk attends to everything before it as well as to itself.
        res.kv_tokens_read += s.prefilled;
        if (s.prefilled == s.req.prompt_tokens) {
            s.first_emitted = true;
            s.generated = 1;
            res.out.push_back({s.req.id, 1, s.generated == s.req.output_tokens, s.cached});
        }
    }

    const double ms = std::exchange(load_ms_, 0.0) + model_.step_base_ms +
                      model_.prefill_token_ms * res.prefill_tokens + model_.decode_seq_ms * res.decode_seqs +
                      model_.kv_token_ms * static_cast<double>(res.kv_tokens_read) +
                      model_.media_encode_ms * res.encoded_items + model_.media_encode_token_ms * res.encoded_tokens;
    res.duration_ns = std::llround(ms * 1e6);

    // Retire finished sequences, keeping the rest in admission order.
    auto keep = running_.begin();
    for (auto it = running_.begin(); it != running_.end(); ++it) {
        if (it->generated >= it->req.output_tokens) {
            finish(*it);
            continue;
        }
        if (keep != it) *keep = std::move(*it);
        ++keep;
    }
    running_.erase(keep, running_.end());

    for (const emission& e : res.out) generation_total_ += e.tokens;
    return res;
}

bool engine::idle() const { return running_.empty() && waiting_.empty(); }
std::size_t engine::running() const { return running_.size(); }
std::size_t engine::waiting() const { return waiting_.size(); }
double engine::kv_usage() const {
    return static_cast<double>(kv_reserved_) / static_cast<double>(model_.kv_capacity_tokens);
}
std::int64_t engine::prompt_tokens_total() const { return prompt_total_; }
std::int64_t engine::generation_tokens_total() const { return generation_total_; }
std::int64_t engine::prefix_cache_queries() const { return cache_queries_; }
std::int64_t engine::prefix_cache_hits() const { return cache_hits_; }
const cost_model& engine::model() const { return model_; }
std::vector<int> engine::waiting_adapters() const {
    std::vector<int> out;
    for (const seq& s : waiting_)
        if (s.req.adapter >= 0 && std::find(out.begin(), out.end(), s.req.adapter) == out.end())
            out.push_back(s.req.adapter);
    std::sort(out.begin(), out.end());
    return out;
}

// Derivation in docs/cost-model.md ("Capacity").
capacity_estimate predict_capacity(const cost_model& m, int input_len, int output_len) {
    capacity_estimate e;
    if (m.firehose) {
        e.max_request_rate = std::numeric_limits<double>::infinity();
        e.output_token_rate = std::numeric_limits<double>::infinity();
        e.batch = m.max_num_seqs;
        e.limited_by = "none";
        return e;
    }
    const int in = std::max(1, input_len);
    const int out = std::max(1, output_len);
    if (in + out > m.max_model_len) {
        e.limited_by = "max_model_len";
        return e;
    }
    const int k = std::max(1, m.tokens_per_step);
    const double budget = std::max(1, m.max_batched_tokens);
    const double I = in;
    // Steps a sequence decodes after the prefill step gave its first token.
    const double D = (out - 1 + k - 1) / k;

    const std::int64_t by_kv = std::max<std::int64_t>(1, m.kv_capacity_tokens / (in + out));
    const int by_seqs = std::max(1, m.max_num_seqs);
    const double B = static_cast<double>(std::min<std::int64_t>(by_seqs, by_kv));
    e.batch = static_cast<int>(B);
    e.limited_by = by_seqs <= by_kv ? "max_num_seqs" : "kv_cache";

    // A new sequence prefills with the budget the other slots' decodes leave
    // (they decode D of every 1 + D steps); a longer prompt spans P steps.
    const double left = std::max(1.0, budget - (B - 1) * D / (1 + D));
    const double chunk = std::min(I, left);
    const double P = std::ceil(I / chunk);
    // Requests completed per step: each holds a slot for P + D steps, unless
    // the token budget (I prefill + D decode tokens per request) runs out first.
    double per_step = B / (P + D);
    if (per_step * (I + D) > budget) {
        per_step = budget / (I + D);
        e.batch = static_cast<int>(std::min(B, std::floor(per_step * (P + D))));
        e.limited_by = "token_budget";
    }
    // KV tokens one request reads over its life: its prefill chunks attend to
    // the prompt so far; decode step j attends to I + 1 + (j-1)k tokens.
    const double kv_prefill = chunk * P * (P - 1) / 2 + I;
    const double kv_decode = D * (I + 1) + k * D * (D - 1) / 2;
    const double per_request_ms = m.prefill_token_ms * I + m.decode_seq_ms * D +
                                  m.kv_token_ms * (kv_prefill + kv_decode);
    e.step_ms = m.step_base_ms + per_step * per_request_ms;
    if (e.step_ms <= 0) {
        e.max_request_rate = std::numeric_limits<double>::infinity();
        e.output_token_rate = std::numeric_limits<double>::infinity();
        e.limited_by = "none";
        return e;
    }
    e.max_request_rate = per_step * 1000.0 / e.step_ms;
    e.output_token_rate = e.max_request_rate * out;
    return e;
}

}  // namespace openloop
