#include "openloop/load/rag.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/base/random.hpp"
#include "openloop/load/length_dist.hpp"
#include "openloop/load/workload.hpp"

#include <algorithm>
#include <cmath>
#include <string>

namespace openloop {
namespace {

constexpr std::uint64_t retrieve_salt = 0x6c8e9cf570932bd5ULL;
constexpr std::uint64_t template_salt = 0x2f0c3a1b8d4e5f61ULL;
constexpr std::uint64_t doc_salt = 0x7a1d3e5c9b2f4086ULL;
constexpr std::uint64_t question_salt = 0x4b9e2d1c6a8f3e07ULL;
constexpr int most_docs = 1'000'000, most_k = 64;

}  // namespace

void check_rag(const rag_config& c) {
    if (!c.enabled()) return;
    const auto bad = [](const std::string& what) { throw input_error(what); };
    if (c.docs > most_docs) bad("--rag-docs: at most " + std::to_string(most_docs) + " documents");
    if (c.k < 1 || c.k > most_k) bad("--rag-k must be 1 to " + std::to_string(most_k));
    if (c.k > c.docs) bad("--rag-k " + std::to_string(c.k) + " is more than the " + std::to_string(c.docs) + " --rag-docs");
    if (c.doc_tokens < 1) bad("--rag-doc-len must be at least 1 token");
    if (c.template_tokens < 0) bad("--rag-template-len must not be negative");
    if (!std::isfinite(c.zipf) || c.zipf < 0 || c.zipf > 4) bad("--rag-zipf must be 0 (all alike) to 4");
}

rag_corpus::rag_corpus(const rag_config& c) : c_(c) {
    check_rag(c);
    cdf_.resize(static_cast<std::size_t>(std::max(c.docs, 0)));
    double sum = 0;
    for (std::size_t r = 0; r < cdf_.size(); ++r) cdf_[r] = sum += std::pow(static_cast<double>(r + 1), -c.zipf);
    for (double& v : cdf_) v /= sum;
}

void rag_corpus::retrieve(std::uint64_t seed, std::uint64_t index, std::vector<int>& out) const {
    out.clear();
    request_rng rng(mix64(mix64(seed ^ retrieve_salt) ^ index));
    const auto taken = [&](int d) { return std::find(out.begin(), out.end(), d) != out.end(); };
    // Draws by popularity, again on a repeat; past a bound (k close to n and
    // skewed) the most popular left fill in, so it always ends.
    for (int tries = 0; static_cast<int>(out.size()) < c_.k && tries < 64 * c_.k; ++tries) {
        const double u = unit_interval(rng);
        const int d = static_cast<int>(std::upper_bound(cdf_.begin(), cdf_.end(), u) - cdf_.begin());
        const int doc = std::min(d, c_.docs - 1);
        if (!taken(doc)) out.push_back(doc);
    }
    for (int d = 0; static_cast<int>(out.size()) < c_.k; ++d)
        if (!taken(d)) out.push_back(d);
}

void rag_corpus::build(const std::vector<int>& docs, int question_tokens, std::uint64_t seed, std::uint64_t index,
                       const prompt_builder& builder, request_spec& out) const {
    out.prompt.clear();
    out.prompt_ids.clear();
    const int question = std::max(1, question_tokens);
    out.input_tokens = c_.template_tokens + static_cast<int>(docs.size()) * c_.doc_tokens + question;
    out.prefix_group = -1;
    out.prompt.reserve(static_cast<std::size_t>(out.input_tokens) * 7);
    prompt_layout layout(builder, out.prompt, out.prompt_ids, out.input_tokens);
    layout.segment(c_.template_tokens, mix64(seed ^ template_salt));
    for (const int d : docs) layout.segment(c_.doc_tokens, mix64(mix64(seed ^ doc_salt) ^ static_cast<std::uint64_t>(d)));
    layout.rest(mix64(mix64(seed ^ question_salt) ^ index));
}

}  // namespace openloop
