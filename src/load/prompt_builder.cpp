#include "openloop/load/prompt_builder.hpp"

#include "openloop/base/random.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <utility>
#include <stdexcept>

namespace openloop {
namespace {

constexpr int max_word_cost = 64;  // a vocabulary word of at most 7 letters: more is a broken count
// A first word carries all the server adds around a prompt: a chat template
// (gpt-oss's Harmony adds 67 tokens), a system prompt. More is a broken count.
constexpr int max_first_cost = 1 << 20;

std::array<int, vocab_size_words> read_costs(const boost::json::object& o, std::string_view key, int most) {
    std::array<int, vocab_size_words> out{};
    const auto* v = o.if_contains(key);
    const auto* a = v ? v->if_array() : nullptr;
    if (!a || a->size() != vocab_size_words)
        throw std::runtime_error("tokenizer cache: \"" + std::string(key) + "\" must be an array of " +
                                 std::to_string(vocab_size_words) + " integers");
    for (std::size_t i = 0; i < vocab_size_words; ++i) {
        if (!(*a)[i].is_int64() || (*a)[i].get_int64() < 0 || (*a)[i].get_int64() > most)
            throw std::runtime_error("tokenizer cache: \"" + std::string(key) + "\"[" + std::to_string(i) +
                                     "] is not a cost of 0 to " + std::to_string(most) + " tokens");
        out[i] = static_cast<int>((*a)[i].get_int64());
    }
    return out;
}

}  // namespace

prompt_builder prompt_builder::with_costs(std::array<int, vocab_size_words> first,
                                          std::array<int, vocab_size_words> inner, std::string label) {
    if (std::none_of(inner.begin(), inner.end(), [](int c) { return c == 1; }))
        throw std::runtime_error("tokenizer: no vocabulary word is a single token, so lengths cannot be exact");
    prompt_builder b;
    b.kind_ = kind::costs;
    b.first_ = first;
    b.inner_ = inner;
    b.label_ = std::move(label);
    return b;
}

prompt_builder prompt_builder::with_ids(std::int64_t vocab_size) {
    if (vocab_size < 256) throw std::invalid_argument("--vocab-size must be at least 256, got " + std::to_string(vocab_size));
    prompt_builder b;
    b.kind_ = kind::ids;
    // Special and byte tokens sit at the low end (SentencePiece) or the high
    // end (Llama 3, Qwen) of a vocabulary; the middle is ordinary text.
    b.id_lo_ = vocab_size / 32;
    b.id_hi_ = vocab_size - vocab_size / 32;
    b.label_ = "ids (vocabulary " + std::to_string(vocab_size) + ")";
    return b;
}

int prompt_builder::append(std::string& text, std::vector<std::int32_t>& ids, int tokens, std::uint64_t seed) const {
    if (tokens <= 0) return 0;
    switch (kind_) {
    case kind::words: append_words(text, tokens, seed); return tokens;
    case kind::ids: {
        std::uint64_t state = seed;
        const auto span = static_cast<std::uint64_t>(id_hi_ - id_lo_);
        for (int k = 0; k < tokens; ++k) {
            state = mix64(state);
            ids.push_back(static_cast<std::int32_t>(id_lo_ + static_cast<std::int64_t>(state % span)));
        }
        return tokens;
    }
    case kind::costs: break;
    }
    // The same word stream as append_words, with a word that would overshoot
    // the length swapped for the next one (in vocabulary order) that fits.
    std::uint64_t state = seed;
    int left = tokens;
    while (left > 0) {
        const bool first = text.empty();
        const auto& cost = first ? first_ : inner_;
        state = mix64(state);
        std::size_t w = state >> 58;
        std::size_t k = 0;
        while (k < vocab_size_words && cost[(w + k) % vocab_size_words] > left) ++k;
        if (k == vocab_size_words) {
            if (!first) break;  // cannot happen: some inner word costs 1
            // Shorter than anything the server adds around a prompt: one word, inexact.
            w = static_cast<std::size_t>(std::min_element(cost.begin(), cost.end()) - cost.begin());
        } else {
            w = (w + k) % vocab_size_words;
        }
        if (!first) text.push_back(' ');
        text.append(vocab_word(w));
        left -= cost[w];
    }
    return tokens - left;
}

prompt_builder prompt_builder::with_trailing(int tokens) const {
    prompt_builder b = *this;
    b.trailing_ = std::clamp(tokens, 0, max_word_cost);
    return b;
}

prompt_builder prompt_builder::with_system(int tokens) const {
    prompt_builder b = *this;
    b.system_ = std::clamp(tokens, 0, floor());
    return b;
}

int prompt_builder::floor() const {
    return kind_ == kind::costs ? *std::min_element(first_.begin(), first_.end()) : 1;
}

prompt_layout::prompt_layout(const prompt_builder& b, std::string& text, std::vector<std::int32_t>& ids, int total)
    : b_(b), text_(text), ids_(ids), total_(total), content_end_(std::max(0, total - b.trailing())) {}

void prompt_layout::segment(int tokens, std::uint64_t seed) {
    const int end = std::min(content_end_, at_ + std::max(0, tokens));
    if (end <= at_) return;
    // The first segment's count carries the trailing tokens, as first[] does.
    b_.append(text_, ids_, end - at_ + (started_ ? 0 : b_.trailing()), seed);
    at_ = end;
    started_ = true;
}

void prompt_layout::rest(std::uint64_t seed) {
    if (started_) {
        segment(content_end_ - at_, seed);
    } else {
        b_.append(text_, ids_, total_, seed);
        started_ = true;
    }
}

boost::json::object prompt_builder::to_json() const {
    boost::json::array f, in;
    for (std::size_t i = 0; i < vocab_size_words; ++i) {
        f.emplace_back(first_[i]);
        in.emplace_back(inner_[i]);
    }
    return boost::json::object{
        {"label", label_}, {"first", std::move(f)}, {"inner", std::move(in)}, {"trailing", trailing_}};
}

prompt_builder prompt_builder::from_json(const boost::json::object& o) {
    const auto* label = o.if_contains("label");
    if (!label || !label->is_string()) throw std::runtime_error("tokenizer cache: missing \"label\"");
    // A cache written before "trailing" was measured is recalibrated.
    const auto* trailing = o.if_contains("trailing");
    if (!trailing || !trailing->is_int64() || trailing->get_int64() < 0 || trailing->get_int64() > max_word_cost)
        throw std::runtime_error("tokenizer cache: missing or bad \"trailing\"");
    const auto first = read_costs(o, "first", max_first_cost);  // in order: a bad file's message names the first fault
    const auto inner = read_costs(o, "inner", max_word_cost);
    return with_costs(first, inner, std::string(label->get_string())).with_trailing(static_cast<int>(trailing->get_int64()));
}

prompt_builder calibrate(const token_counter& count, std::string label) {
    const auto must = [&](const std::string& text) {
        const auto n = count(text);
        if (!n || *n < 0) throw std::runtime_error("tokenizer calibration: no token count for \"" + text + "\"");
        return *n;
    };
    // Words are separated by spaces, which no tokenizer in use merges across
    // (SentencePiece splits on whitespace, byte-level BPE pre-splits words),
    // so a text's count is its first word's plus each later word's own.
    const std::string anchor(vocab_word(0));
    const int anchor_count = must(anchor);
    std::array<int, vocab_size_words> first{}, inner{};
    for (std::size_t i = 0; i < vocab_size_words; ++i) {
        const std::string word(vocab_word(i));
        first[i] = must(word);
        inner[i] = must(anchor + " " + word) - anchor_count;
        if (inner[i] < 1 || inner[i] > max_word_cost || first[i] < 1 || first[i] > max_first_cost)
            throw std::runtime_error("tokenizer calibration: implausible count for \"" + word + "\" (" +
                                     std::to_string(inner[i]) + " tokens after a space)");
    }
    return prompt_builder::with_costs(first, inner, std::move(label));
}

calibration_check verify(const prompt_builder& b, const token_counter& count, int samples, std::uint64_t seed,
                         int longest) {
    calibration_check out;
    std::uint64_t state = mix64(seed ^ 0x1f83d9abfb41bd6bULL);
    // No shorter than what the server adds around every prompt: below it no prompt is exact.
    const int shortest = std::max(8, b.floor());
    for (int i = 0; i < samples; ++i) {
        state = mix64(state);
        // Lengths from short to a few thousand tokens, where drift would show.
        const int want =
            shortest + static_cast<int>(state % static_cast<std::uint64_t>(i % 2 == 0 ? std::min(120, longest) : longest));
        std::string text;
        std::vector<std::int32_t> ids;
        const int built = b.append(text, ids, want, mix64(state));
        const auto n = count(text);
        ++out.samples;
        if (n && *n == built && built == want) {
            ++out.exact;
        } else if (out.first_miss.empty()) {
            out.first_miss = "asked " + std::to_string(want) + ", server counted " + (n ? std::to_string(*n) : "nothing");
        }
    }
    return out;
}

}  // namespace openloop
