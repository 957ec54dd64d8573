#pragma once
// Which OpenAI API a run sends to (--endpoint): parsed once by cli/, compared
// as a value everywhere after. Pure.

#include <optional>
#include <string_view>

namespace openloop {

enum class endpoint_kind { chat, completions, responses, embeddings, transcriptions };

// "chat", "completions", "responses", "embeddings", "transcriptions"; nullopt for anything else.
std::optional<endpoint_kind> parse_endpoint(std::string_view name);
std::string_view to_string(endpoint_kind endpoint);
// The API path under the base path: "/chat/completions", "/completions", ...
std::string_view endpoint_path(endpoint_kind endpoint);

}  // namespace openloop
