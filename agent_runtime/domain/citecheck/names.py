"""Names in a claim and where a reader of the page finds them: in the passage, or in its context
(the sentences before it, the headings above it, the title), as a surname for a full name, as the
thing "it" means after a sentence naming one of its kind. The lexical pass
(agent_runtime/domain/citecheck/lexical.py) asks `claim_names` for a claim's names and
`check_names` for those the passage and its context do not give."""

from __future__ import annotations

import re
from functools import lru_cache

import agent_runtime.domain.citecheck.facts as fx
import agent_runtime.domain.citecheck.text as tx
from agent_runtime.domain.citecheck.page import HONORIFICS, Context, Sentence, make_sentence
from agent_runtime.domain.citecheck.roles import zh_bodies
from agent_runtime.domain.citecheck.verdict import Reason

_HAN = re.compile(r"[\u4e00-\u9fff]")

_REFERS = re.compile(
    r"\b(?:it|its|they|their|he|she|his|her|the (?:company|firm|group|bank|agency|ministry|government|city|"
    r"country|team|club|council|court|party|organisation|organization|university|institute|fund|board|"
    r"carmaker|airline|insurer|lender|retailer|regulator|utility|operator|developer|manufacturer))\b"
    r"|该|其|公司|他|她|该行|集团|本场|本次|此次|这场|这次|本届|此前",
    re.I,
)
_KIN = re.compile(
    r"^\W*(?:[A-Z][a-z]+\s+)?(?:his|her|their)\s+(?:father|mother|brother|sister|wife|husband|son|daughter|uncle|aunt|"
    r"grandfather|grandmother|cousin|parents|partner|widow|widower|nephew|niece)\b"
    r"|^\W*(?:其|他的|她的)(?:父亲|母亲|哥哥|姐姐|弟弟|妹妹|妻子|丈夫|儿子|女儿|父|母|妻|夫)",
    re.I,
)
_DESCRIPTION = re.compile(r"^\W*(?:the|this|that|these)\s+[a-z][a-z-]+\b")  # "The chip is built…": the one named before
_CAPITAL = re.compile(r"[A-ZÀ-ÖØ-Þ](?:[A-Za-zÀ-ÖØ-öø-ÿ]|['’&.-])*[A-Za-zÀ-ÖØ-öø-ÿ]|[A-Z]")  # Lucía, Ødegaard, O'Neill


def claim_names(claim: str, source_plain: frozenset[str], source_names: frozenset[str]) -> tuple[list[str], list[str]]:
    """The claim's names: English capitalised words that are not its first word, Latin words in
    Chinese, jieba's names; and apart, its capitalised first words the source never writes in lower
    case (a name the source uses, or one it never mentions: "Lyon hosted…"; but maybe an ordinary
    opener, so a missing one only makes the claim weak). A label before a colon is no name."""
    out: list[str] = []
    openers: list[str] = []
    label = re.match(r"\W*[A-Z][^:.!?]{0,40}:\s", claim)
    for m in _CAPITAL.finditer(claim):
        if label and m.start() < label.end():
            continue
        word = re.sub(r"['’]s?$", "", m.group(0)).rstrip(".")
        low = word.lower()
        if len(word) < 2 or low in tx.STOP or low in tx.OPENERS or low in fx._MONTHS or low in fx._WORDS:
            continue
        before = claim[: m.start()].rstrip()
        first = not before or before[-1] in '.!?:;"“(。！？；：' or bool(re.search(r"(^|\s)[-*•]$", before))
        mixed = any(c.isupper() or c.isdigit() for c in word[1:])
        ordinary = tx.stem(low) in source_plain or low.endswith(("ly", "ing", "ed", "ers", "ors", "ists", "ment", "tion", "ness"))
        if first and not mixed and ordinary:  # an opener the source writes in lower case, or plainly no name
            continue
        possessive = bool(re.match(r"['’]s\b", claim[m.start() + len(word) :]))
        if first and not mixed and not possessive and tx.stem(low) not in source_names:
            if low not in openers:
                openers.append(low)
            continue
        if low not in out:
            out.append(low)
    if tx.is_chinese(claim):
        zh_label = re.match(r"\W*[^：:。，]{1,12}[：:]", claim)
        body = claim[zh_label.end() :] if zh_label else claim
        out += [name for name in tx.zh_names(body) if name not in out]
        # a title (《铁衣》) is a name whatever jieba makes of it; words in quotes (“程乙本”, or a
        # phrase quoted: “重大突破”) may be, so one the passage lacks only leaves the claim unconfirmed
        out += [q for q in re.findall(r"《([^》]{2,12})》", body) if q not in out and _HAN.search(q)]
        # a body by its kind (省农信联社), where jieba names none of it: read from the words, it may
        # be a description (博物馆新馆), so one the passage lacks only leaves the claim unconfirmed
        openers += [b for b in zh_bodies(body) if not any(b in o or o in b for o in [*out, *openers])]
        openers += [q for q in re.findall(r"[“「]([^”」]{2,12})[”」]", body) if q not in out and q not in openers and _HAN.search(q)]
    return out, openers


def named_in(name: str, sentence: Sentence) -> bool:
    """Whether a sentence gives one of a claim's names (as `claim_names` returns them)."""
    return _name_found(name, sentence.tokens, sentence.text)


def _name_found(name: str, sentence_tokens: frozenset[str], text: str) -> bool:
    low = text.lower()
    for key in (name, tx.stem(name) if tx.is_latin(name) else name):
        if any(spelled in low for spelled in tx.ACRONYMS.get(key, ())):
            return True
    for acronym, spelled_out in tx.ACRONYMS.items():  # "United States" for a source's "US"
        if any(name in words.split() for words in spelled_out) and re.search(rf"\b{acronym}\b|\b{'.'.join(acronym)}\.", low):
            return True
    if tx.is_latin(name):
        parts = [p for p in re.split(r"[.&-]", name) if p]
        if all(tx.stem(p) in sentence_tokens or p in text.lower() for p in parts):
            return True
        if _demonym_of(name.lower(), low):
            return True
        initials = "".join(w[0].lower() for w in re.findall(r"\b[A-Z][a-z]+", text))
        return 3 <= len(name) <= 6 and name in initials  # IMF for the International Monetary Fund
    return tx.zh_name_found(name, text)


def _demonym_of(name: str, text: str) -> bool:
    """Whether a name is the adjective of a place the text names: Andalusian (Andalusia), Kenyan,
    Brazilian, Italian (Italy)."""
    for place in set(re.findall(r"\b[a-z]{4,}\b", text)):
        root = place[:-1] + "i" if place.endswith("y") else place
        if name.startswith(root) and name[len(root) :] in ("n", "an", "ian", "ese", "ish"):
            return True
    return False


def check_names(
    claim: str,
    names: list[str],
    passage: list[Sentence],
    around: Context,
    lead: Sentence,
    elsewhere: list[Sentence],
    page_names: frozenset[str],
    earlier: list[Sentence],
    page_text: str,
    acronyms: frozenset[str] = frozenset(),
    anchor: Sentence | None = None,
    page: Sentence | None = None,
) -> tuple[list[Reason], list[Reason]]:
    """Each name of the claim in the passage, or where a reader of the page takes it from:
    - the passage's context (the sentences before it, the headings above it, the title), nearest
      first, when the passage says "she", "it", "the company", names no one else, or names the same
      person shorter (Curie, Dr. Curie, 张教授 for 张三); a section heading naming someone else stops
      the search (a section about Pierre Curie does not speak of Marie; the page's own title or
      first heading never does);
    - the page's first sentence, which names its subject;
    - the full name the page last gave before the passage, when the passage calls that person by
      surname or title alone ("Ellery", "Ms Lind", "张教授"; `earlier`: the title, headings and
      sentences before the passage, in the page's order);
    - a sentence elsewhere sharing the claim's words, when the passage names no one else and the
      missing name is not the other half of a name the passage gives (Curie there: Pierre is not).

    Returns (names the page never gives, names it gives elsewhere): the first contradict the
    claim, the second only leave it unconfirmed — a summary or a report's sentence names what the
    page's title, another section or another paragraph names, and words cannot tell whether the
    passage speaks of it (`page`: the whole page and its title, read as one sentence).
    """
    text = " ".join(s.text for s in passage)
    tokens = frozenset().union(*(s.tokens for s in passage))
    missing = [n for n in names if not _name_found(n, tokens, text)]
    # jieba's cut across two words of the claim (占青崖 of "占青崖影视产业园…") is no name: unconfirmed
    miscut = [n for n in missing if n not in page_text and _miscut(n, claim, page_text)]
    missing = [n for n in missing if n not in miscut]
    if not missing:
        return [], [Reason("name", said=display_name(n)) for n in miscut]
    claim_words = tx.content_tokens(claim)  # "First" of "First World War" is no rival
    rivals = _own_names(passage, names) - claim_words
    # A person the passage calls by surname or title ("Ellery", "王教授") is whom the page last
    # named so in full, and no one else: neither context nor another sentence lends the name.
    shortened = [n for n in missing if _called_short(n, claim, text)]
    missing = [n for n in missing if n not in shortened]
    blocked = False  # the nearest heading names someone else: the passage speaks of them
    # whom the passage speaks of is read in the sentence that states the claim (the anchor), not in
    # a neighbour joined for a word ("…by TSMC. Quillon said laptops…": Quillon is no rival)
    own = [anchor] if anchor is not None else passage
    # "全县…", "全市…": the whole county or city the page is about, whatever section it stands in
    whole = re.match(r"\W*全([县市省区镇乡村])", " ".join(s.text for s in own))
    if whole and missing:
        subject = [lead, *around.headings[-1:]]
        missing = [
            n for n in missing
            if not (not tx.is_latin(n) and n.endswith(whole.group(1)) and any(_name_found(n, x.tokens, x.text) for x in subject))
        ]  # fmt: skip
    if missing and _refers_to_context(" ".join(s.text for s in own), _subjects(own, names, page_text) - claim_words):
        stems = {tx.stem(n) if tx.is_latin(n) else n for n in names}
        for level in around.levels:
            heading = level in around.headings
            # the sentence right before "it": the thing of the claim's kind it names is whom "it" means
            # ("…stood the smaller Greyrigg Viaduct. It was demolished": not the Pellham Viaduct)
            # ("she" after "Her younger brother, Erik Halvorsen…" is no brother: people are told apart by more than a name)
            thing = _speaks_of_a_thing(" ".join(x.text for x in own))
            referent = _named_of_its_kind(level.text, claim, missing) if level is around.levels[0] and not heading and thing else None
            if referent is False:
                blocked = True
                break
            if referent:
                missing = []
                break
            # Chinese leaves the subject out and carries on with what the sentence before named, anywhere
            # in it (…名为舍利塔，高31米。1976年地震中，塔刹震落…)
            # — a thing or a place; a person is named where the subject is
            nearest_zh = level is around.levels[0] and tx.is_chinese(level.text)
            where = level if heading else _subject_part(level)
            people = tx.zh_people(claim) if nearest_zh else ()
            missing = [
                n for n in missing
                if not _name_found(n, where.tokens, where.text)
                and not (nearest_zh and n not in people and _name_found(n, level.tokens, level.text))
            ]  # fmt: skip
            if not missing:
                break
            # (a heading naming part of the claim's own name, 城关镇 of 云溪县城关镇, is its section)
            if heading and level is not around.headings[-1] and {h for h in _heading_names(level, page_names) - stems if h not in claim}:
                blocked = True
                break
        if missing and not blocked and lead not in passage:
            missing = [n for n in missing if not _name_found(n, lead.tokens, lead.text)]
    if missing and not blocked and around.headings:  # the page's own topic, named where the claim is not about its actor
        topic = [around.headings[-1], lead]  # "…in the 2020 Norrvik municipal election" on the page of that election
        opening = _claim_opening(claim)
        missing = [n for n in missing if _name_found(n, opening.tokens, opening.text) or not any(_name_found(n, t.tokens, t.text) for t in topic)]
    # (read in the passage and the headings above it: a sentence before it may name a brother)
    read = " ".join(x.text for x in [*passage, *around.headings])
    if missing and not rivals and not blocked:  # no rival name in the passage: one said elsewhere, unless
        missing = [  # the passage's subject bears the claim's surname with another given name
            n for n in missing
            if _borne_by_another(n, claim, read) or not any(_name_found(n, s.tokens, s.text) for s in elsewhere)
        ]  # fmt: skip
    named = {n: _named_earlier(n, claim, text, earlier) for n in shortened}
    other_person = [n for n in shortened if named[n] is False]  # the page's last "… Curie" was someone else
    missing += [n for n in shortened if named[n] is None]
    # An acronym (LFP, IMF) the source uses elsewhere: the passage spells it out, or calls it "it".
    missing = [n for n in missing if not (n in acronyms and any(_name_found(n, s.tokens, s.text) for s in elsewhere))]
    # What shows the passage speaks of someone else: a section about another, a page's "Marie
    # Curie" where the claim says "Pierre Curie", a surname last given to another; else a name the
    # page gives elsewhere only leaves the claim unconfirmed.
    # the sentence stating the claim has a subject of its own, named, that the claim does not name
    # ("Paris hosted the event in 2019" for "Lyon hosted the event in 2019")
    opening = _claim_opening(claim)
    rival = _rival_subject(own[0], claim_words, page_text, claim) if own else None
    # (a section about another speaks against the claim's subject, not against every name it
    # gives: "龙潭乡倒塌的房屋约为白水镇的五倍" in the section on 龙潭乡)
    contradicted = [
        *other_person,
        *(
            n for n in missing
            if _borne_by_another(n, claim, read) or ((rival or blocked) and _name_found(n, opening.tokens, opening.text))
        ),
    ]  # fmt: skip
    unconfirmed = [
        n for n in missing
        if n not in contradicted and page is not None and _name_found(n, page.tokens, page.text)
    ] + miscut  # fmt: skip
    return (
        [Reason("name", said=display_name(n)) for n in [*contradicted, *(n for n in missing if n not in contradicted + unconfirmed)]],
        [Reason("name", said=display_name(n)) for n in unconfirmed],
    )


def _miscut(name: str, claim: str, page_text: str) -> bool:
    """Whether a short Chinese "name" is jieba's cut across two words of the claim, which the page
    writes apart: 比马 of "比马骁的" (the page: 马骁的), 港海 of "北礁港海铁联运" (海铁联), 占岚江 of
    "占岚江市政府" (江市政) — one end of it, with the two characters of the claim beyond, is on the page."""
    if tx.is_latin(name) or len(name) > 3 or name[-1] in "区县市省镇乡村湖岛港桥寺" or name in tx.zh_people(claim):
        return False  # (西湖区 is a name; so is 张伟, whose 伟表示 the page may write of 李伟)
    for m in re.finditer(re.escape(name), claim):
        for window in (claim[max(0, m.start() - 2) : m.start() + 1], claim[m.end() - 1 : m.end() + 2]):
            if len(window) == 3 and all(_HAN.fullmatch(c) for c in window) and window in page_text:
                return True
    return False


def _speaks_of_a_thing(text: str) -> bool:
    """Whether the first word of a passage that speaks of what its context names is "it", "the
    bridge" or 该 — a thing — rather than "she", "he" or "they"."""
    refers = min((m for m in (_REFERS.search(text), _DESCRIPTION.search(text)) if m), key=lambda m: m.start(), default=None)
    return refers is None or refers.group(0).lower().strip() not in ("he", "she", "his", "her", "they", "their", "他", "她")


# The first words of places' names, which are no given names ("Lake Wollomai", "Mount Teravai").
_PLACE_WORDS = frozenset(
    """lake mount river port fort cape saint st north south east west new old upper lower great little
    bay glen loch isle lough mountain""".split()  # noqa: SIM905
)
# Titles a person is called by with the surname alone ("Captain Pendry", "Judge Okafor").
_RANKS = frozenset(
    """captain colonel general major lieutenant sergeant admiral commander judge justice bishop father sister
    president governor senator mayor chancellor minister inspector detective coach""".split()  # noqa: SIM905
)


def _rival_subject(sentence: Sentence, claim_words: set[str], page_text: str = "", claim_text: str = "") -> str | None:
    """The name that opens a sentence as its subject ("Paris hosted…"), when the claim does not
    give it: the claim's own subject, missing there, is contradicted. A capitalised opener counts
    as a name only when the page also writes it so inside a sentence ("Seismometers recorded…" is
    no rival)."""
    first = re.match(r"[\W\d_]*([A-Z][a-z'’-]+)(?:\s+[A-Z][a-z'’-]+)*\s+([a-z]+ed|has|had|is|was|were|won|lost|hosted|said)\b", sentence.text)
    if not first or tx.stem(first.group(1).lower()) in claim_words or first.group(1).lower() in tx.STOP:
        return None
    word = tx.stem(first.group(1).lower())
    named = re.search(rf"(?:[a-z,;] |\bthe ){re.escape(first.group(1))}\b", page_text)  # inside a sentence too
    # or it opens the sentence doing what the claim's subject does ("Paris hosted…" for "Lyon hosted…")
    same_act = re.search(rf"^\W*[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*\s+{first.group(2)}\b", claim_text)
    return word if (word in sentence.names and word != sentence.opener) or named or same_act else None


def _borne_by_another(name: str, claim: str, read: str) -> bool:
    """Whether the claim's given name `name` comes before a surname that what the reader has read
    gives with another given name: "Pierre Curie" where the passage's context says "Marie Curie"."""
    if not tx.is_latin(name) or name in _PLACE_WORDS:
        return False
    surname = _surname_after(name, claim)
    if surname is None:
        return False
    given = re.findall(rf"\b([A-Z][^\W\d_]+)\s+(?:[A-Z]\.\s+)?{re.escape(surname)}\b", read)
    return any(g.lower() != name and g.lower() not in tx.STOP and g.lower() not in HONORIFICS for g in given)


def _named_of_its_kind(text: str, claim: str, missing: list[str]) -> bool | None:
    """Whom "it" after this sentence means, when the sentence names a thing of the kind the claim
    names (a name with the same last word as the claim's missing one), not after "with", "by",
    "and"…: True when it is the claim's (the Helm Viaduct), False when another (the Greyrigg
    Viaduct, for a claim about the Pellham Viaduct), None when the sentence names none."""
    wanted = {tx.stem(n) for n in missing if tx.is_latin(n)}
    kinds = {run[-1]: set(run) for run, _ in _capitalised_runs(claim) if set(run) & wanted}
    found = [run for run, before in _capitalised_runs(text) if run[-1] in kinds and not _OBJECT_CUE.search(before)]
    if not found:
        return None
    return all(set(run) <= kinds[run[-1]] for run in found)


_OBJECT_CUE = re.compile(r"\b(?:with|by|and|or|to|from|for|against|than|of|like|as)\s+(?:the\s+)?$", re.I)


def _capitalised_runs(text: str) -> list[tuple[list[str], str]]:
    """The names of two words or more a text writes with capitals (as stems), without an article
    or other small word before them ("The Harlow Street Bridge" is Harlow Street Bridge), each
    with the text before it."""
    runs = []
    for match in re.finditer(r"\b[A-Z][\w'’-]*(?:\s+(?:of\s+)?[A-Z][\w'’-]*)+", text):
        words = re.findall(r"[A-Z][\w'’-]*", match.group(0))
        while words and words[0].lower() in tx.STOP:
            words.pop(0)
        if len(words) >= 2:
            runs.append(([tx.stem(w.lower()) for w in words], text[max(0, match.start() - 20) : match.start()]))
    return runs


def _heading_names(heading: Sentence, page_names: frozenset[str]) -> set[str]:
    """The names a section heading gives: its words that the page also writes as names inside its
    sentences (a heading "Pierre Curie" on a page that says "…with Pierre Curie"; not "Ecology",
    "Services"), when they are most of it (a heading that names, not "Move to English"); in
    Chinese, a person or a named place or body (李四, 白沙湖; not 历史沿革)."""
    words = re.findall(r"[A-Za-zÀ-ÖØ-öø-ÿĀ-ɏ'’-]+", heading.text)
    out = {tx.stem(w.lower()) for w in words if w[0].isupper()} & page_names
    if len(out) * 2 < len(words):
        out = set()
    if _HAN.search(heading.text):
        out |= set(tx.zh_people(heading.text)) | {m.group(0) for m in tx.zh_places(heading.text)}
    return out


def _named_earlier(name: str, claim: str, passage: str, earlier: list[Sentence]) -> bool | None:
    """Whether the person the passage calls by surname (or surname and title) is the claim's: the
    full name last given before the passage in its section, or else in the title, the headings
    and the page's first sentence (`earlier`, in the page's order) — "Pierre" for a passage's
    "Curie" only if that last "… Curie" was "Pierre Curie". False when it was someone else's, None
    when the page gave no full name before the passage."""
    if tx.is_latin(name):
        surname = _surname_after(name, claim)
        if surname is None:
            return None
        # "Captain Pendry" is whom the page called "Captain … Pendry" ("Captain James Pendry"),
        # whoever of that surname it named last ("his son Thomas Pendry")
        for title in re.findall(rf"\b([A-Z][a-z]+)\.?\s+{re.escape(surname)}\b", passage):
            if title.lower() not in HONORIFICS and title.lower() not in _RANKS:
                continue
            titled = [g.lower() for x in earlier for g in re.findall(rf"\b{title}\.?\s+([A-Z][a-z]+)\s+{re.escape(surname)}\b", x.text)]
            if titled:
                return name in titled

        def given(text: str) -> list[str]:  # the names before the surname: Marie Skłodowska Curie
            runs = re.findall(rf"((?:\b[A-Z][^\W\d_]*\.?\s+){{1,3}}){re.escape(surname)}\b", text)
            return [" ".join(w.lower().rstrip(".") for w in run.split() if w.lower().rstrip(".") not in HONORIFICS) for run in runs]
    else:
        family = tx.zh_surname(name)
        # 郑校长 is whom the page calls 校长 with the surname 郑 ("校长郑婉清", "梁志远研究员"),
        # whoever of that surname it named last
        for short in tx.zh_people(passage):
            title = short[len(family) :] if short.startswith(family) and tx.zh_same_person(short, name) else ""
            if len(title) < 2:
                continue
            titled = [
                m.group(1) or m.group(2)
                for x in earlier
                for m in re.finditer(rf"{title}({family}[\u4e00-\u9fff]{{1,2}})|({family}[\u4e00-\u9fff]{{1,2}}?){title}", x.text)
            ]
            if titled:  # ("主任何静介绍": 何静 or 何静介, as the characters after the title may run on)
                return any(t.startswith(name) for t in titled)

        def given(text: str) -> list[str]:
            whole = [text] if 2 <= len(text) <= 4 and text.startswith(family) else []  # a title that is a name
            found = [n for n in tx.zh_names(text) if tx.zh_surname(n) == family and 2 <= len(n) <= 4]
            return whole + [n for n in found if not tx.zh_same_person(n, name)]  # 刘老 is no full name

    for sentence in reversed(earlier):
        for mention in reversed([n for n in given(sentence.text) if n]):
            if name in mention.split() or mention == name:
                return True
            if " " not in mention:  # one given name before the surname: another person ("Pierre Curie");
                return False  # a longer run of capitals may be a phrase ("the First World War Curie…")
    return None


def _claim_opening(claim: str) -> Sentence:
    """The opening of a claim, where its actor is named ("Brackwell had…", "青澜湖的…"); a place
    after "in", "at" or "near" there is the setting, not the actor ("Local buyers in Serra Alta…")."""
    opening = " ".join(claim.split()[:4])
    return _opening(re.sub(r"\b(?:in|at|near|across|throughout)\s+(?:the\s+)?[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*", " ", opening), words=4, characters=8)


def _subject_part(sentence: Sentence) -> Sentence:
    """The opening of a sentence, where its subject is named: a name further on ("…with Pierre
    Curie") is not whom the next sentence's "she" means."""
    opener = _PARTICIPLE_OPENER.match(sentence.text)
    if opener:  # "Founded in 1998 by Graham Nuttall, it now operates…": the subject follows the comma
        return _opening(sentence.text[opener.end() :], words=6, characters=12)
    return _opening(sentence.text, words=6, characters=12)


# A sentence opening with a participle phrase ("Founded in 1998 by …,", "Born in Lyon,", "Located
# on …,") names its subject after the comma.
_PARTICIPLE_OPENER = re.compile(
    r"\W*(?:[A-Z][a-z]+ed|Born|Built|Founded|Located|Based|Known|Made|Run|Set|Being|Having|Originally [a-z]+ed)\b[^,;]{0,120},\s*"
)


@lru_cache(maxsize=4096)
def _opening(text: str, *, words: int, characters: int) -> Sentence:
    """The first words of a text (the first characters of a Chinese one), read as a sentence."""
    return make_sentence(text[:characters] if tx.is_chinese(text) else " ".join(text.split()[:words]))


def _called_short(name: str, claim: str, passage: str) -> bool:
    """Whether the passage calls the claim's person `name` belongs to by surname alone, or by
    surname and title: "Pierre" of "Pierre Curie" where the passage says "Curie"; 王慧敏 where it
    says 王教授."""
    if not tx.is_latin(name):
        return 2 <= len(name) <= 4 and tx.zh_surname(name) in tx.ZH_SURNAMES and any(
            tx.zh_same_person(short, name) for short in tx.zh_people(passage)
        )
    surname = _surname_after(name, claim)
    return surname is not None and bool(re.search(rf"\b{re.escape(surname)}\b", passage)) and not re.search(
        rf"\b{re.escape(name)}\b", passage, re.I
    )


def _surname_after(name: str, claim: str) -> str | None:
    """The surname the claim writes after a given name ("Curie" of "Pierre Curie", "Pierre M.
    Curie"), without its possessive (Penhaligon's → Penhaligon); None when none follows."""
    run = re.search(rf"\b(?i:{re.escape(name)})\s+(?:[A-Z]\.\s+)?([A-ZÀ-ÖØ-Þ][A-Za-zÀ-ÖØ-öø-ÿĀ-ɏ'’-]+)", claim)
    return re.sub(r"['’]s$", "", run.group(1)) if run else None


def _refers_to_context(text: str, subjects: set[str]) -> bool:
    """Whether the passage speaks of someone its context names: it names no subject of its own,
    or says "she", "it", "the company", "该" before it names one (after one, "该桥" is that one)."""
    if not subjects:
        return True
    refers = min((m for m in (_REFERS.search(text), _DESCRIPTION.search(text)) if m), key=lambda m: m.start(), default=None)
    if not refers:
        return False
    # "…另建江汉二桥，该桥…": 该 speaks of the place named just before it
    if _HAN.search(text) and any(m.end() <= refers.start() for m in tx.zh_places(text)):
        return False
    low = text.lower()
    found = (low.find(n.lower()[:4]) for n in subjects)  # a stem's first letters mark where its word is
    first_rival = min((at for at in found if at >= 0), default=len(text))
    return refers.start() < first_rival


def _latin_names(sentences: list[Sentence], claimed: list[str]) -> set[str]:
    """The capitalised names of sentences that the claim does not give (as stems)."""
    return set().union(*(s.names for s in sentences)) - {tx.stem(n) for n in claimed if tx.is_latin(n)}


def _own_names(passage: list[Sentence], claimed: list[str]) -> set[str]:
    """Names the passage gives that the claim does not."""
    own = _latin_names(passage, claimed)
    text = " ".join(s.text for s in passage)
    if tx.is_chinese(text):
        own |= {n for n in tx.zh_names(text) if n not in claimed and not any(tx.zh_same_person(n, c) for c in claimed)}
    return own


def _subjects(passage: list[Sentence], claimed: list[str], page_text: str) -> set[str]:
    """Names the passage gives as its subjects that the claim does not: the names in the opening
    of each of its sentences ("Rovers had defender Sam Oduya…", not "…from the church of San
    Telmo"), a bare sentence opener left out (it may be an ordinary word: "Entries and exits…")."""
    openings = [_subject_part(s) for s in passage]
    own = _latin_names(openings, claimed)
    for sentence in passage:
        kin = _KIN.match(sentence.text)
        if kin:  # "His father ran…", "其父…": someone else than the one the context names
            own.add(kin.group(0).strip().lower())
    for sentence, opening in zip(passage, openings, strict=True):  # "Hensford, counted as…", "Paris hosted…"; not "Entries and exits…"
        first = re.match(r"[\W\d_]*([A-Z][a-z'’-]+)(?!\s+(?:and|or|of|&)\b)", opening.text)
        if first and tx.stem(first.group(1)) in sentence.names:
            own.add(tx.stem(first.group(1)))
    text = " ".join(o.text for o in openings)
    if tx.is_chinese(text):  # Chinese leaves the subject out: a person, or a place or body opening it, is a rival
        people = [n for n in tx.zh_people(text) if len(n) >= 3 or page_text.count(n) >= 2]  # jieba's 于清 once is no one
        named = [*people, *(m.group(0) for s in passage for m in tx.zh_places(s.text[:12]))]
        own |= {
            n for n in named
            if n not in claimed and not any(tx.zh_same_person(n, c) or n in c or c in n for c in claimed)
        }  # fmt: skip
    return own


def display_name(name: str) -> str:
    """A name as a reason shows it (Latin names capitalised as written in a sentence)."""
    return name[:1].upper() + name[1:] if tx.is_latin(name) else name
