#pragma once
// tokenizer.json's post_processor for one sequence: what it adds around the
// ids when special tokens are asked for. TemplateProcessing's "single",
// BertProcessing and RobertaProcessing ([CLS] ... [SEP]), ByteLevel (nothing
// for ids) and Sequence.

#include <boost/json/value.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace openloop::hf {

class post_processor {
public:
    using id_of = std::function<std::optional<std::int32_t>(std::string_view)>;
    // v: the post_processor member (null: adds nothing). ids maps a token's
    // text to its id, for templates that name tokens. Throws
    // std::runtime_error naming path.
    post_processor(const boost::json::value& v, const std::string& path, const id_of& ids);
    // One that adds before and after, whatever the file says (tokenizer_config's add_bos_token).
    post_processor(std::vector<std::int32_t> before, std::vector<std::int32_t> after)
        : before_(std::move(before)), after_(std::move(after)) {}

    // ids with what the post-processor adds around one sequence.
    void apply(std::vector<std::int32_t>& ids) const;

private:
    void read(const boost::json::value& v, const std::string& path, const id_of& ids);
    void around(const std::vector<std::int32_t>& before, const std::vector<std::int32_t>& after);

    std::vector<std::int32_t> before_, after_;
};

}  // namespace openloop::hf
