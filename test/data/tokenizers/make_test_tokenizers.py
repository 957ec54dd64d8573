# Writes the two small tokenizers of this folder (fixed seed, so the same bytes
# every time): python3 make_test_tokenizers.py test/data/tokenizers
import json, random, os, sys
out = sys.argv[1]
rnd = random.Random(30)

words = """the of and to in is was for on that with as by at from it his an were are which this be or has had not
but first one their its new after who they have her she two been other when there all during into school time may
years more most only over city some world would where later up such used many can state about national out known
university united then made these while under team well between three through both however new music american
century game year before being called people high second since part film series season including album city
house work water light play small large long great little right old best world word number sound place
tokenizer token model language text learn learning machine server request response latency throughput
running runner played playing player plays happy unhappy happiness kind kindness unkind read reading reader
nation national nations station stations information international internationally""".split()
accented = "café naïve résumé über straße crème déjà vu niño señor façade coöperate jalapeño Zürich São Paulo Ångström".split()
cjk = "中 文 字 日 本 語 人 大 学 生 我 你 好 的 是 不 了 在 有".split()
kana = "の に は を た が で て と し".split()
hangul = "한 국 어 사 람".split()
suffixes = "ing ed s es er est ly ness tion tions al ity ment able ful less un re in dis ation ize ized".split()
letters = list("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") + list("éèêëàâäôöûüùçñßåÅÉÖÜ")
punct = list(".,!?;:'\"()[]{}-_/\\@#$%^&*+=<>|~`") + ["...", "—", "–", "“", "”", "’", "«", "»", "。", "、", "，", "！"]

def write(name, tok, cfg):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "tokenizer.json"), "w", encoding="utf-8") as f:
        json.dump(tok, f, ensure_ascii=False, indent=1)
        f.write("\n")
    with open(os.path.join(d, "tokenizer_config.json"), "w", encoding="utf-8") as f:
        json.dump(cfg, f, ensure_ascii=False, indent=1)
        f.write("\n")

def added(i, content):
    return {"id": i, "content": content, "single_word": False, "lstrip": False, "rstrip": False,
            "normalized": False, "special": True}

# Unigram, T5-like: <pad> </s> <unk> first, then pieces with SentencePiece's
# shape: "▁" only at a piece's start, every single character of the alphabet.
pieces = {}
def piece(p, score):
    if p not in pieces:
        pieces[p] = round(score, 4)
piece("\u2581", -2.5)
for w in sorted(set(words)):
    piece("\u2581" + w, -rnd.uniform(6, 11) + 0.15 * len(w))
    if rnd.random() < 0.5:
        piece(w, -rnd.uniform(8, 12))
    if rnd.random() < 0.3:
        piece("\u2581" + w.capitalize(), -rnd.uniform(8, 11))
for w in accented:
    piece("\u2581" + w, -rnd.uniform(8, 11))
for s in suffixes:
    piece(s, -rnd.uniform(5, 8))
    piece("\u2581" + s, -rnd.uniform(7, 10))
for w in words[:80]:
    for k in (2, 3, 4):
        if len(w) > k and rnd.random() < 0.35:
            piece(w[:k], -rnd.uniform(7, 10))
            piece("\u2581" + w[:k], -rnd.uniform(7, 10))
            piece(w[k:], -rnd.uniform(7, 11))
for c in letters + punct + cjk + kana + hangul:
    piece(c, -rnd.uniform(9, 13))
for c in cjk[:8]:
    piece("\u2581" + c, -rnd.uniform(9, 12))
piece("\u4e2d\u6587", -7.5)
piece("\u65e5\u672c\u8a9e", -8.0)
vocab = [["<pad>", 0.0], ["</s>", 0.0], ["<unk>", 0.0]] + [[p, s] for p, s in pieces.items()]
unigram = {
    "version": "1.0", "truncation": None, "padding": None,
    "added_tokens": [added(0, "<pad>"), added(1, "</s>"), added(2, "<unk>")],
    "normalizer": {"type": "NFKC"},
    "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "add_prefix_space": True,
                      "prepend_scheme": "always", "split": True},
    "post_processor": {"type": "TemplateProcessing",
        "single": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
        "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}},
                 {"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
        "special_tokens": {"</s>": {"id": "</s>", "ids": [1], "tokens": ["</s>"]}}},
    "decoder": {"type": "Metaspace", "replacement": "\u2581", "add_prefix_space": True,
                "prepend_scheme": "always", "split": True},
    "model": {"type": "Unigram", "unk_id": 2, "vocab": vocab, "byte_fallback": False},
}
write("unigram-metaspace", unigram, {"tokenizer_class": "T5Tokenizer", "eos_token": "</s>", "unk_token": "<unk>",
                                     "pad_token": "<pad>", "model_max_length": 512})

# WordPiece, BERT-uncased-like: specials, punctuation, letters, ##letters,
# lowercase words, ##suffixes, CJK ideographs (kana and hangul as words).
wp = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
def add(t):
    if t not in wp:
        wp.append(t)
for p in punct:
    add(p)
for c in "abcdefghijklmnopqrstuvwxyz0123456789":
    add(c)
    add("##" + c)
for w in sorted(set(words)):
    add(w)
for w in ["cafe", "naive", "resume", "uber", "strasse", "creme", "deja", "nino", "senor", "facade", "zurich", "sao", "angstrom"]:
    add(w)
for s in suffixes:
    add("##" + s)
for w in words[:60]:
    if len(w) > 4 and rnd.random() < 0.4:
        add(w[:3])
        add("##" + w[3:])
for c in cjk + kana[:5]:
    add(c)
add("##ß")
add("ß")
wordpiece = {
    "version": "1.0", "truncation": None, "padding": None,
    "added_tokens": [added(0, "[PAD]"), added(1, "[UNK]"), added(2, "[CLS]"), added(3, "[SEP]"), added(4, "[MASK]")],
    "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                   "strip_accents": None, "lowercase": True},
    "pre_tokenizer": {"type": "BertPreTokenizer"},
    "post_processor": {"type": "TemplateProcessing",
        "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                   {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
        "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                 {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
                 {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
        "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]},
                           "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}},
    "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
    "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
              "max_input_chars_per_word": 100, "vocab": {t: i for i, t in enumerate(wp)}},
}
write("wordpiece-bert", wordpiece, {"tokenizer_class": "BertTokenizer", "do_lower_case": True, "unk_token": "[UNK]",
                                    "sep_token": "[SEP]", "pad_token": "[PAD]", "cls_token": "[CLS]",
                                    "mask_token": "[MASK]", "model_max_length": 512})
print(len(vocab), len(wp))
