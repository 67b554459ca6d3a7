# ruff: noqa: E501  (sentence templates read better unwrapped)
"""Generate the bundled prompt corpus: `en.txt` and `zh.txt`, reproducibly.

Run from the repository root:  python resources/corpus/make_corpus.py
The output is a pure function of SEED and this file, so the shipped text can always be rebuilt
and checked (`python resources/corpus/make_corpus.py --check`).

The text is original, written from hand-made sentence templates about an invented countryside:
essays on a lighthouse, a bakery, a ferry, a paper mill, and so on, each with its own town,
people, years and seasons. It reads as plain prose, never one sentence repeated, and carries no
copyright of anyone else's work.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

SEED = 20240601
TARGET_BYTES = {"en": 300_000, "zh": 300_000}
HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Topic:
    subject: str  # "the harbour lighthouse"
    items: str  # plural things counted: "lamps"
    activity: str  # gerund phrase: "keeping the light"
    tool: str
    material: str
    feature: str  # a place in town


# ---------------------------------------------------------------------------------------------
# English
# ---------------------------------------------------------------------------------------------

EN_TOPICS = [
    Topic(
        "the harbour lighthouse",
        "lamps",
        "keeping the light",
        "brass lens",
        "whitewashed stone",
        "the headland",
    ),
    Topic(
        "the village bakery",
        "loaves",
        "baking bread before dawn",
        "long wooden peel",
        "rye flour",
        "the market square",
    ),
    Topic(
        "the river ferry",
        "crossings",
        "working the ferry",
        "iron chain",
        "tarred oak",
        "the river mouth",
    ),
    Topic(
        "the church clock",
        "gears",
        "winding the clock",
        "brass key",
        "cast iron",
        "the church tower",
    ),
    Topic(
        "the hives on the hill",
        "hives",
        "keeping bees",
        "bellows smoker",
        "beeswax",
        "the heather slopes",
    ),
    Topic("the salt pans", "pans", "raking salt", "wooden rake", "grey clay", "the tidal flats"),
    Topic(
        "the lending library",
        "books",
        "cataloguing books",
        "card index",
        "oak shelving",
        "the old corn exchange",
    ),
    Topic(
        "the railway halt",
        "trains",
        "keeping the timetable",
        "signal lever",
        "painted timber",
        "the cutting",
    ),
    Topic(
        "the old orchard",
        "apple trees",
        "pruning the orchard",
        "curved knife",
        "grafting wax",
        "the south wall",
    ),
    Topic(
        "the glassworks",
        "bottles",
        "blowing glass",
        "long blowpipe",
        "sand and potash",
        "the furnace yard",
    ),
    Topic(
        "the weather station",
        "readings",
        "recording the weather",
        "mercury barometer",
        "a louvred box",
        "the ridge",
    ),
    Topic(
        "the tea house",
        "pots of tea",
        "brewing tea",
        "copper kettle",
        "green leaf",
        "the footbridge",
    ),
    Topic(
        "the stone bridge",
        "arches",
        "repairing the bridge",
        "mason's chisel",
        "limestone",
        "the ford",
    ),
    Topic("the paper mill", "sheets", "making paper", "wire mould", "linen rag", "the weir"),
    Topic(
        "the small observatory",
        "star charts",
        "charting the sky",
        "brass refractor",
        "polished brass",
        "the hilltop",
    ),
    Topic("the map room", "maps", "drawing maps", "ruling pen", "vellum", "the council house"),
    Topic("the boatyard", "hulls", "building boats", "adze", "larch planks", "the slipway"),
    Topic(
        "the wool market",
        "fleeces",
        "spinning wool",
        "drop spindle",
        "raw fleece",
        "the market hall",
    ),
    Topic(
        "the chapel choir",
        "hymns",
        "singing in the choir",
        "tuning fork",
        "old hymn books",
        "the chapel",
    ),
    Topic(
        "the walled garden",
        "vegetable beds",
        "growing vegetables",
        "hoe",
        "leaf mould",
        "the old rectory",
    ),
    Topic(
        "the post office",
        "letters",
        "sorting the post",
        "date stamp",
        "brown paper",
        "the high street",
    ),
    Topic(
        "the fishing fleet",
        "boats",
        "hauling nets",
        "netting needle",
        "hemp twine",
        "the harbour wall",
    ),
    Topic(
        "the village school", "pupils", "teaching arithmetic", "slate board", "chalk", "the green"
    ),
    Topic("the mill pond", "herons", "watching birds", "field glasses", "reed beds", "the sluice"),
    Topic(
        "the forge", "horseshoes", "working iron", "cross-peen hammer", "bar iron", "the crossroads"
    ),
    Topic(
        "the cheese dairy",
        "wheels of cheese",
        "making cheese",
        "curd knife",
        "fresh milk",
        "the valley farm",
    ),
    Topic(
        "the rope walk",
        "coils of rope",
        "twisting rope",
        "spinning wheel",
        "hemp fibre",
        "the long shed",
    ),
    Topic(
        "the printing shop",
        "pamphlets",
        "setting type",
        "composing stick",
        "lead type",
        "the corner by the bank",
    ),
    Topic("the pottery", "jugs", "throwing pots", "kick wheel", "red clay", "the brickfield"),
    Topic(
        "the lifeboat station",
        "rescues",
        "launching the lifeboat",
        "cork jacket",
        "painted canvas",
        "the shingle bank",
    ),
]

EN_TOWNS = [
    "Harrowgate",
    "Elm Hollow",
    "Saltmere",
    "Brackenford",
    "Wexley",
    "Corran Bay",
    "Millbrook",
    "Ashby Cross",
    "Tarn Edge",
    "Pelham Reach",
    "Stonewick",
    "Larkspur",
    "Fenmarch",
    "Greywater",
    "Kestrel Point",
    "Hollins",
    "Marrow Down",
    "Quillan",
    "Redhithe",
    "Oakenshaw",
    "Willowby",
    "Sandholme",
    "Dunmere",
    "Thornbury Vale",
    "Castle Lacy",
    "Penhallow",
    "Ferncombe",
    "Linwood",
]
EN_FIRST = [
    "Margaret",
    "Thomas",
    "Eleanor",
    "Samuel",
    "Agnes",
    "Walter",
    "Edith",
    "Harold",
    "Ruth",
    "Arthur",
    "Clara",
    "George",
    "Ivy",
    "Frederick",
    "Mabel",
    "Alfred",
    "Nora",
    "Leonard",
    "Beatrice",
    "Joseph",
    "Winifred",
    "Albert",
    "Lydia",
    "Ernest",
    "Hannah",
    "Percy",
    "Dora",
    "Owen",
    "Martha",
    "Stanley",
    "Phyllis",
    "Cecil",
    "Iris",
    "Victor",
    "Rosa",
    "Hugh",
]
EN_LAST = [
    "Hale",
    "Pritchard",
    "Dunmore",
    "Ashworth",
    "Bell",
    "Carrow",
    "Fenwick",
    "Gill",
    "Holloway",
    "Ingram",
    "Jessop",
    "Kerr",
    "Lowther",
    "Marsh",
    "Nettleton",
    "Orme",
    "Penrose",
    "Quayle",
    "Rudd",
    "Standish",
    "Thwaite",
    "Underwood",
    "Varley",
    "Webb",
    "Yardley",
    "Coates",
    "Fairbairn",
]
EN_ROLES = [
    "a retired schoolteacher",
    "the harbour master",
    "a young cartographer",
    "the village baker",
    "an itinerant clockmaker",
    "a botanist from the county university",
    "the postmistress",
    "a stonemason",
    "the parish archivist",
    "a fisherwoman",
    "the stationmaster",
    "a carpenter",
    "the district nurse",
    "a former ship's cook",
    "the local historian",
    "a farmer from the upper valley",
    "the innkeeper",
    "a painter who moved here from the city",
    "the church warden",
    "a surveyor",
    "the ferryman's daughter",
    "a weaver",
    "the blacksmith",
]
EN_SEASONS = [
    "spring",
    "early summer",
    "high summer",
    "autumn",
    "late autumn",
    "winter",
    "the rainy season",
    "the first frosts",
]
EN_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
EN_WEATHER = [
    "a thin grey drizzle",
    "a hard north wind",
    "fog rolling in from the sea",
    "still, bright air",
    "a warm southerly breeze",
    "heavy rain",
    "a light frost",
    "low cloud on the hills",
    "blue, cold sunshine",
]
EN_NUMBERS = [
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "twelve",
    "fifteen",
    "twenty",
    "thirty",
    "forty",
]
EN_COLOURS = [
    "slate blue",
    "faded green",
    "rust red",
    "cream",
    "pale ochre",
    "dark brown",
    "chalk white",
    "deep maroon",
]
EN_SOUNDS = [
    "the gulls",
    "the church bell",
    "a dog barking across the water",
    "carts on the cobbles",
    "the wind in the wires",
    "rooks in the elms",
    "the slow tick of a clock",
]
EN_QUOTES = [
    "You learn it with your hands long before you can explain it",
    "Nobody here is in a hurry, and the work is better for it",
    "The old ways were not always the best ways, but they were rarely the stupid ones",
    "If you watch the weather you will never be surprised twice",
    "Every year someone tells me it will all be done by machine, and every year we are still here",
    "My mother taught me, and her uncle taught her, and that is most of the history there is",
    "It looks simple until you try it on a cold morning",
    "People come for an afternoon and stay for a summer",
    "The trick is to leave things a little better than you found them",
    "You never own a place like this, you only look after it for a while",
    "The mistakes are the part you remember, and they are the part that teaches you",
    "When it goes right nobody notices, which is exactly how it should be",
]

EN_TITLES = [
    "{Subject} at {town}",
    "Notes on {subject} in {town}",
    "A Year of {Activity}",
    "{town} and {subject}",
    "The Keepers of {subject}",
    "On {Activity} in {town}",
    "Letters from {town}",
    "What {town} Remembers",
    "A Short History of {subject}",
    "{Activity}: a Memoir from {town}",
]

EN_ROLES_SENTENCES: dict[str, list[str]] = {
    "open": [
        "In {town}, {subject} has stood near {feature} for longer than anyone can quite remember.",
        "Most visitors to {town} come for the views, but the people who live here will tell you that the real story is {subject}.",
        "There is no sign pointing to {subject}, and the townspeople seem to prefer it that way.",
        "If you walk down from {feature} on a morning of {weather}, the first thing you notice is {subject}.",
        "For a place of fewer than {n2} households, {town} has always taken {activity} remarkably seriously.",
        "It would be easy to drive through {town} without noticing {subject} at all.",
        "The guidebooks give {subject} a single line, which says a great deal about guidebooks.",
        "Ask anyone in {town} for directions and sooner or later they will mention {subject}.",
        "Some towns are known for a battle, a saint or a famous son; {town} is known, quietly, for {activity}.",
        "On the old parish map, {subject} is marked with a small hand-drawn symbol that nobody has ever fully explained.",
    ],
    "place": [
        "The building itself is modest: thick walls, a {colour} door and a roof that has been patched more times than it has been replaced.",
        "From {feature} you can see the whole of {town} spread out below, the chimneys, the lanes and the line of the shore.",
        "Behind it runs a narrow lane lined with hawthorn, and beyond that the fields climb slowly toward the moor.",
        "The air smells faintly of {material}, a smell that the older residents say they would recognise anywhere.",
        "On a quiet afternoon the only sounds are {sound} and the occasional voice from the lane.",
        "The road from {town2} reaches it after a long bend, so that it appears all at once, as if it had been waiting.",
        "Inside, the light falls in long bars across the floor, and everything is kept in a careful, slightly old-fashioned order.",
        "A bench stands outside, worn smooth by generations of people who came to sit, talk and watch the weather.",
        "The walls are thick enough to keep out the worst of the winter, though not, people admit, the damp.",
        "Nearby, a row of cottages painted {colour} leans gently toward the road, as though listening.",
    ],
    "history": [
        "The first written record of {subject} dates from {year}, when a clerk noted that {n} {items} had been counted and set aside.",
        "In {year} a storm did serious damage, and for a season the town managed without it before the repairs were paid for by subscription.",
        "During the {decade}, when money was short everywhere, {activity} was one of the few things that kept {town} in work.",
        "An account book from {year} lists the wages, the price of {material} and, unexpectedly, a small sum spent on cake for the workers.",
        "The parish records mention a dispute in {year} between two families over which of them could carry on {activity2} on Sundays.",
        "By {year2} the work had changed hands several times, but the methods had hardly changed at all.",
        "Old photographs from the {decade} show the same {tool} in use, held by people whose grandchildren still live nearby.",
        "It was nearly closed in {year2}, when a county report described it as picturesque but uneconomical.",
        "A petition signed by {n2} residents saved it, and a framed copy still hangs by the door.",
        "Nobody is certain who began {activity} here, though there are at least {n} competing stories, each told with great confidence.",
        "The great flood of {year} reached the second step and left a brown line that you can still see if you know where to look.",
        "For a time in the {decade} the work was done almost entirely by women, while the men were away, and the records from those years are the neatest of all.",
    ],
    "people": [
        "{intro} has spent {n} years {activity} and says the work is mostly patience.",
        "{name} remembers being sent here as a child with a message and staying the whole afternoon.",
        '"{quote}," says {first}, without looking up from the {tool}.',
        "{first} keeps a notebook of every unusual day, and the notebook is now on its {nth} volume.",
        "The person most people mention first is {intro} who seems to know everybody's business and forgets none of it.",
        "{name} arrived from {town2} intending to stay for a month, and that was {n} years ago.",
        "Asked what has changed, {first} thinks for a long time before answering that the tools are lighter and the winters are shorter.",
        "{intro} still uses the {tool} that was handed down by an older relative, and keeps it wrapped in cloth when it is not in use.",
        "Younger people do come to learn, {first} says, though fewer than before, and not all of them stay.",
        '"{quote}," {first} tells me, and then laughs, as if embarrassed to have said something so serious.',
        "{name} insists that the best advice came from {name2}, {role2}, who never wrote anything down.",
        "It is {first} who opens up each morning, usually before the first light, and {first} who locks up last.",
    ],
    "process": [
        "The work begins with {material}, which has to be checked, sorted and set aside before anything else can happen.",
        "{activity} is slower than it looks, and most of the skill lies in knowing when to stop.",
        "The {tool} is used at every stage, and a good one can last a working lifetime if it is looked after.",
        "Each step is done by hand, in the same order, and the order matters more than the speed.",
        "On a good day {n} {items} are finished; on a bad one, perhaps half that, and nobody complains.",
        "A beginner tends to work too quickly, and the result is always uneven in ways that only an expert can see.",
        "There is a moment, halfway through, when everything must wait, and the waiting is part of the craft.",
        "Mistakes are rarely thrown away; they are set aside, studied and often put to some other use.",
        "The measurements are written in chalk on the wall, in a shorthand that only two or three people can read.",
        "Much depends on the weather: {weather} can double the time needed, and a dry wind can halve it.",
        "At the end of each day the {tool} is cleaned, the floor is swept and the {items} are counted twice.",
        "Nothing is wasted: even the leftovers find their way into somebody's garden, shed or kitchen.",
    ],
    "season": [
        "In {season} the rhythm changes, and the long evenings are spent on repairs that were put off all year.",
        "By {month} the first visitors arrive, and the locals learn to give directions with a patient smile.",
        "{season} brings {weather}, and with it a week or two when almost nothing can be done outside.",
        "The busiest weeks fall in {month}, when everyone who can lend a hand is asked to.",
        "In {season}, when the light goes early, the lamps are lit by four o'clock and the windows glow across {feature}.",
        "Every {month} there is a small celebration, with music, a long table and more food than anyone can eat.",
        "The quiet months are not idle ones; they are when the {tool} is overhauled and the accounts are finally settled.",
        "Children used to be given a day off school in {month} to help, and some of them still talk about it as the best day of the year.",
        "When {weather} sets in, the work moves indoors, and the talk turns to old stories.",
        "By the end of {season} the store is full, the roof is sound, and {town} can breathe a little easier.",
    ],
    "detail": [
        "On one shelf sits a row of jars, each labelled in a different hand, some of them older than the building.",
        "There is a small brass plate by the door with a date on it, and the date is almost certainly wrong.",
        "A cat, officially nobody's, sleeps on the warmest sill and is fed by everyone.",
        "The visitors' book goes back to {year}, and its pages record weather, complaints, marriage proposals and one short poem.",
        "Someone has pinned a faded {colour} ribbon above the workbench, and nobody can say who or why.",
        "A hand-painted board lists every keeper since {year}, and there is room for exactly {n} more names.",
        "Among the papers is a letter from a child in {town2}, asking whether it is true that the place is haunted.",
        "The floorboards near the window are worn into a shallow dip where people have stood to look out for more than a century.",
        "An old {tool}, too worn to use, hangs on a nail as a kind of memorial.",
        "In a drawer there is a bundle of recipes, instructions and remedies, all mixed together without any order.",
    ],
    "reflect": [
        "What is striking about {subject} is not that it has survived, but how little fuss it makes about surviving.",
        "It would be tempting to call this a way of life that is disappearing, but nobody in {town} seems to think so.",
        "Perhaps the lesson is simply that care, repeated daily, adds up to something larger than any single day.",
        "There is a kind of knowledge here that does not fit easily into books, which may be why so few books mention it.",
        "The economists who once called it uneconomical were, in their own terms, quite right, and it has not mattered in the least.",
        "For the people of {town}, {activity} is less a tradition than a habit, and habits are harder to lose.",
        "Places like this remind us that not every useful thing needs to grow.",
        "It is the ordinary days, rather than the famous storms, that have kept {subject} going.",
        "Whatever happens in the next fifty years, somebody will probably still be {activity} here, and complaining about the weather.",
    ],
    "close": [
        "As I leave, the light is going, and somebody is already lighting the lamp in the window.",
        "On the road back to {town2} I look over my shoulder once, and {subject} is still there, exactly as it was.",
        "The bench outside is empty now, but it will not stay that way for long.",
        "{first} waves from the doorway, already turning back to the work.",
        "Tomorrow the same door will open at the same hour, and that, in the end, is the whole point.",
        "The tide is coming in across {feature}, and the day's last visitors are heading home.",
        "Behind me I can hear {sound}, and then nothing but the wind.",
    ],
}
EN_DECADES = [
    "1870s",
    "1880s",
    "1890s",
    "1900s",
    "1910s",
    "1920s",
    "1930s",
    "1940s",
    "1950s",
    "1960s",
]
EN_NTH = ["third", "fourth", "fifth", "sixth", "seventh", "ninth", "eleventh", "fourteenth"]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _title_case(text: str) -> str:
    small = {"a", "an", "the", "of", "on", "in", "at", "and", "for", "to", "from", "by"}
    words = text.split()
    return " ".join(w if (i and w in small) else _cap(w) for i, w in enumerate(words))


_WORD = re.compile(r"[A-Za-z]+")
_CJK = re.compile(r"[\u4e00-\u9fff]")
_MARK = re.compile(r"[^\sA-Za-z\d\u4e00-\u9fff]")
# Corpus-wide means of the two density figures below, measured on unbalanced text; a paragraph
# is kept only when both are within _TOLERANCE of them, so that any slice of a few thousand
# characters tokenizes like the whole (what per-model calibration relies on).
_MEANS = {"en": (4.77, 4.26), "zh": (1.012, 0.890)}
_TOLERANCE = (0.01, 0.02)


def density(text: str, language: str) -> tuple[float, float]:
    """(characters per word-or-mark, mean word length) for English; (characters per
    CJK-character-or-mark, share of CJK characters) for Chinese."""
    words = _WORD.findall(text)
    marks = len(_MARK.findall(text))
    if language == "en":
        return len(text) / max(1, len(words) + marks), sum(map(len, words)) / max(1, len(words))
    cjk = len(_CJK.findall(text))
    return len(text) / max(1, cjk + len(words) + marks), cjk / max(1, len(text))


def _balanced(text: str, language: str) -> bool:
    figures = density(text, language)
    return all(
        abs(value / mean - 1) <= tol
        for value, mean, tol in zip(figures, _MEANS[language], _TOLERANCE, strict=True)
    )


def _paragraphs(
    rng: random.Random,
    by_role: dict[str, list[str]],
    fill: Callable[[str], str],
    introduced: list[bool],
    language: str,
) -> list[str]:
    """One essay's paragraphs: an opening, three to five shuffled middles, a closing."""
    plan = [["open", "place"], ["history"], ["people"], ["process"], ["season"], ["detail"]]
    plan.append(["reflect", "close"])
    middle = plan[1:-1]
    rng.shuffle(middle)
    middle = middle[: rng.randint(3, len(middle))]
    pools = {k: list(v) for k, v in by_role.items()}
    joiner = " " if language == "en" else ""
    paragraphs = []
    for roles in [plan[0], *middle, plan[-1]]:
        for _attempt in range(200):
            state = introduced[0]
            chosen: list[tuple[str, str]] = []
            for role in roles:
                take = rng.randint(2, 4) if len(roles) > 1 else rng.randint(3, 6)
                for template in rng.sample(pools[role], min(take, len(pools[role]))):
                    chosen.append((role, template))
            text = joiner.join(fill(template) for _, template in chosen)
            if _balanced(text, language):
                break
            introduced[0] = state
        for role, template in chosen:
            pools[role].remove(template)
        paragraphs.append(text)
    return paragraphs


def en_essay(rng: random.Random) -> str:
    topic = rng.choice(EN_TOPICS)
    towns = rng.sample(EN_TOWNS, 2)
    people = [(rng.choice(EN_FIRST), rng.choice(EN_LAST), rng.choice(EN_ROLES)) for _ in range(2)]
    other_activity = rng.choice(EN_TOPICS).activity
    base = {
        "town": towns[0],
        "town2": towns[1],
        "subject": topic.subject,
        "Subject": _title_case(topic.subject),
        "items": topic.items,
        "activity": topic.activity,
        "activity2": other_activity,
        "Activity": _title_case(topic.activity),
        "tool": topic.tool,
        "material": topic.material,
        "feature": topic.feature,
        "first": people[0][0],
        "name": f"{people[0][0]} {people[0][1]}",
        "role": people[0][2],
        "name2": f"{people[1][0]} {people[1][1]}",
        "role2": people[1][2],
    }

    introduced = [False]

    def fill(template: str) -> str:
        intro = f"{base['name']}, {base['role']}," if not introduced[0] else base["name"]
        if "{intro}" in template:
            introduced[0] = True
        season = rng.choice(EN_SEASONS)
        year = rng.randint(1780, 1890)
        values = dict(
            base,
            season=season,
            Season=_cap(season),
            month=rng.choice(EN_MONTHS),
            weather=rng.choice(EN_WEATHER),
            n=rng.choice(EN_NUMBERS),
            n2=str(rng.randint(3, 40) * 10),
            year=str(year),
            year2=str(year + rng.randint(30, 120)),
            decade=rng.choice(EN_DECADES),
            colour=rng.choice(EN_COLOURS),
            sound=rng.choice(EN_SOUNDS),
            quote=rng.choice(EN_QUOTES),
            nth=rng.choice(EN_NTH),
            intro=intro,
        )
        return _cap(template.format(**values))

    paragraphs = _paragraphs(rng, EN_ROLES_SENTENCES, fill, introduced, "en")
    title = _cap(rng.choice(EN_TITLES).format(**base))
    return f"# {title}\n\n" + "\n\n".join(paragraphs)


# ---------------------------------------------------------------------------------------------
# Simplified Chinese
# ---------------------------------------------------------------------------------------------

ZH_TOPICS = [
    Topic("海边的灯塔", "灯盏", "守灯", "铜制透镜", "刷了白灰的石头", "岬角"),
    Topic("镇上的老面馆", "碗面", "揉面擀面", "长擀面杖", "新磨的面粉", "十字街口"),
    Topic("江边的渡口", "趟渡船", "摆渡", "竹篙", "桐油", "江湾"),
    Topic("祠堂的老钟", "个齿轮", "上钟", "铜钥匙", "生铁", "祠堂的钟楼"),
    Topic("山坡上的蜂场", "箱蜜蜂", "养蜂", "喷烟器", "蜂蜡", "向阳的山坡"),
    Topic("海边的盐田", "块盐田", "晒盐", "木耙", "青灰色的泥", "滩涂"),
    Topic("镇图书馆", "本书", "整理书目", "卡片目录", "樟木书架", "老粮站"),
    Topic("山里的小火车站", "趟列车", "守站", "信号扳手", "刷了漆的木头", "山口"),
    Topic("村后的果园", "棵橘树", "修剪果树", "弯刀", "嫁接蜡", "南墙下"),
    Topic("老茶厂", "斤茶叶", "炒茶", "大铁锅", "鲜叶", "半山腰"),
    Topic("气象观测站", "条记录", "记录天气", "水银气压计", "百叶箱", "山脊"),
    Topic("桥头的茶馆", "壶茶", "泡茶待客", "铜壶", "粗瓷茶碗", "石桥头"),
    Topic("古老的石拱桥", "个桥洞", "修桥", "石匠的錾子", "青石", "河滩"),
    Topic("手工造纸坊", "张纸", "抄纸", "竹帘", "嫩竹", "溪边的水碓"),
    Topic("小小的天文台", "张星图", "观星", "黄铜望远镜", "打磨过的铜件", "山顶"),
    Topic("县里的地图室", "幅地图", "绘制地图", "鸭嘴笔", "宣纸", "县衙旧址"),
    Topic("河边的船坞", "条木船", "造船", "锛子", "杉木板", "船台"),
    Topic("镇上的布庄", "匹布", "织布染布", "木织机", "蓝靛", "布庄巷"),
    Topic("村里的戏台", "出戏", "唱戏", "锣鼓", "旧戏服", "祠堂前的空地"),
    Topic("院子里的菜园", "畦菜", "种菜", "锄头", "腐熟的草肥", "老宅后院"),
    Topic("老邮局", "封信", "分拣邮件", "邮戳", "牛皮纸", "正街"),
    Topic("渔村的船队", "条渔船", "拉网捕鱼", "梭子", "麻绳", "防波堤"),
    Topic("山村小学", "个学生", "教算术", "小黑板", "粉笔", "村口的大樟树下"),
    Topic("水塘边的鸟", "只白鹭", "观鸟", "望远镜", "芦苇丛", "水闸"),
    Topic("村口的铁匠铺", "副马掌", "打铁", "铁锤", "熟铁", "岔路口"),
    Topic("豆腐坊", "板豆腐", "磨豆腐", "石磨", "黄豆", "井台边"),
    Topic("竹编作坊", "只竹篮", "编竹器", "篾刀", "毛竹", "竹林边"),
    Topic("老印刷厂", "本小册子", "排字印刷", "排字架", "铅字", "银行旁边的巷子"),
    Topic("窑厂", "只陶罐", "拉坯烧陶", "转盘", "红黏土", "砖窑"),
    Topic("海上救生站", "次救援", "出海救人", "软木救生衣", "帆布", "卵石滩"),
]
ZH_TOWNS = [
    "青石镇",
    "柳溪村",
    "白鹭湾",
    "桃花坞",
    "清水河",
    "南山坳",
    "石门县",
    "梅岭",
    "云溪",
    "枫桥镇",
    "芦花荡",
    "东湖村",
    "杏林镇",
    "落霞湾",
    "松风岭",
    "稻香村",
    "燕子矶",
    "竹溪",
    "望海镇",
    "双河口",
    "金沙村",
    "银杏坪",
    "凤凰岭",
    "小河湾",
]
ZH_PEOPLE = [
    "老陈",
    "林秀兰",
    "王建国",
    "赵阿婆",
    "周师傅",
    "李明远",
    "孙晓梅",
    "吴老伯",
    "郑海生",
    "何春燕",
    "许文彬",
    "高玉珍",
    "马大叔",
    "冯丽华",
    "唐志强",
    "韩秋月",
    "宋师傅",
    "曹老师",
    "彭德胜",
    "蒋小芳",
    "沈阿姨",
    "罗家明",
    "邓桂英",
    "谢长庚",
]
ZH_ROLES = [
    "一位退休的语文老师",
    "老船工",
    "面点师傅",
    "镇上的邮递员",
    "守塔人",
    "养蜂人",
    "图书管理员",
    "制茶师傅",
    "石匠",
    "铁匠",
    "织布的阿婆",
    "老渔民",
    "小站的站长",
    "气象员",
    "木匠",
    "村里的赤脚医生",
    "从城里搬来的画家",
    "县志办的老先生",
    "测绘员",
    "茶馆老板",
    "学校的校长",
    "年轻的地理学者",
]
ZH_SEASONS = ["春天", "初夏", "盛夏", "秋天", "深秋", "冬天", "梅雨季", "霜降前后"]
ZH_MONTHS = [
    "正月",
    "二月",
    "三月",
    "四月",
    "五月",
    "六月",
    "七月",
    "八月",
    "九月",
    "十月",
    "冬月",
    "腊月",
]
ZH_WEATHER = [
    "绵绵细雨",
    "刺骨的北风",
    "从海上漫过来的大雾",
    "晴朗无风的天气",
    "暖洋洋的南风",
    "一场接一场的大雨",
    "薄薄的白霜",
    "压在山头的低云",
    "清冷的阳光",
]
ZH_NUMBERS = [
    "两",
    "三",
    "四",
    "五",
    "六",
    "七",
    "八",
    "九",
    "十",
    "十二",
    "十五",
    "二十",
    "三十",
    "四十",
]
ZH_COLOURS = ["灰蓝色", "褪了色的绿色", "铁锈红", "米白色", "淡黄色", "深褐色", "粉白色", "暗红色"]
ZH_SOUNDS = [
    "海鸥的叫声",
    "远处的钟声",
    "对岸的狗叫",
    "石板路上的车轮声",
    "风吹电线的呜呜声",
    "老樟树上的鸟叫",
    "挂钟慢悠悠的滴答声",
]
ZH_QUOTES = [
    "这门手艺，手比脑子先学会",
    "这里没人着急，活儿反倒做得更好",
    "老办法不一定最好，可很少是笨办法",
    "天天看天的人，不会被同一场雨淋两次",
    "年年有人说以后都用机器了，可我们年年都还在",
    "我娘教的我，她舅舅教的她，这就是全部的历史",
    "看着简单，冬天早上你来试试",
    "有人来玩一个下午，结果住了一整个夏天",
    "东西交到下一个人手里的时候，要比你接手时好一点",
    "这样的地方谁也占不了，只是替它照看一阵子",
    "记得最清楚的是出错的时候，教会你的也是那些时候",
    "做好了没人注意，本来就该这样",
]
ZH_TITLES = [
    "{town}的{subject}",
    "关于{subject}的几则札记",
    "{activity}的一年",
    "{town}记事",
    "守着{subject}的人",
    "在{town}{activity}",
    "{town}来信",
    "{subject}小史",
]
ZH_DECADES = [
    "光绪年间",
    "民国初年",
    "二十年代",
    "三十年代",
    "抗战那几年",
    "五十年代",
    "六十年代",
    "七十年代",
    "八十年代初",
]

ZH_ROLES_SENTENCES: dict[str, list[str]] = {
    "open": [
        "在{town}，{subject}立在{feature}已经很多年了，谁也说不清到底有多少年。",
        "来{town}的外地人多半是为了看风景，可本地人会告诉你，真正值得一说的是{subject}。",
        "没有哪块路牌指向{subject}，镇上的人似乎也更愿意这样。",
        "要是在一个{weather}的早晨从{feature}走下来，你第一眼看到的就是{subject}。",
        "一个不到{n2}户人家的地方，却一直把{activity}这件事看得很重。",
        "开车经过{town}的人，很容易根本注意不到{subject}。",
        "旅游手册上只给了{subject}一行字，这本身就说明了旅游手册是怎么回事。",
        "随便问一个{town}人怎么走，说着说着他总会提到{subject}。",
        "有的地方因为一场仗、一位名人出名，{town}却是悄悄地因为{activity}出了名。",
        "在老地图上，{subject}的位置画着一个小小的记号，至今没人能完全说清它的意思。",
    ],
    "place": [
        "房子本身并不起眼：{material}，一扇{colour}的门，屋顶补过的次数比换过的次数多得多。",
        "站在{feature}往下看，整个{town}都铺在眼前，烟囱、小巷，还有弯弯的岸线。",
        "屋后是一条长满野蔷薇的小路，再往后，田地一层一层慢慢爬上山坡。",
        "空气里隐约有一股{material}的味道，老住户说这股味道他们走到哪儿都认得出来。",
        "安静的下午，只听得见{sound}，偶尔还有巷子里传来的说话声。",
        "从{town2}过来的路在这里拐了一个大弯，于是它一下子出现在眼前，好像一直在等着谁。",
        "屋里的光一条一条斜铺在地上，所有东西都摆得规规矩矩，带着一点老派的讲究。",
        "门外有一条长凳，被一代又一代来坐着聊天、看天的人磨得光溜溜的。",
        "墙砌得很厚，挡得住最冷的冬天，只是大家都承认，挡不住潮气。",
        "旁边一排刷成{colour}的老屋微微朝路边倾着，像是在侧耳听着什么。",
    ],
    "history": [
        "关于{subject}最早的文字记载是在{year}年，一位账房先生记下了{n}{items}，单独放在一边。",
        "{year}年的一场台风损坏严重，镇上有一整季只能将就着过，后来大家凑钱才修好。",
        "{decade}，到处都缺钱，{activity}是{town}少数还能让人有活干的营生之一。",
        "一本{year}年的账簿上记着工钱、{material}的价钱，还有一小笔意想不到的开销：给干活的人买点心。",
        "县志里提到{year}年两户人家为了谁有权在初一十五{activity2}而起过争执。",
        "到了{year2}年，这份活计已经换过好几拨人，可做法几乎一点没变。",
        "{decade}的老照片上，用的还是同样的{tool}，拿着它的人的孙辈至今还住在附近。",
        "{year2}年它差点被关掉，一份县里的报告说它“很有风味，但不划算”。",
        "后来{n2}位居民联名写了请愿书，才把它保了下来，那份请愿书的复印件至今还挂在门边。",
        "谁最先在这里{activity}，没人说得准，流传的说法至少有{n}种，每一种讲的人都十分笃定。",
        "{year}年的大水一直淹到第二级台阶，留下一道黄褐色的水印，知道位置的人现在还找得到。",
        "{decade}有一段时间，这里的活几乎全是女人在做，男人们都出门去了，那几年的记录是最工整的。",
    ],
    "people": [
        "{intro}{activity}已经{n}年了，说这活儿说到底就是耐心。",
        "{name}记得小时候被大人打发来送个口信，结果在这里待了整整一个下午。",
        "“{quote}，”{name}说这话时，手里的{tool}一直没停。",
        "{name}有个本子，专门记不寻常的日子，如今已经记到第{nth}本了。",
        "大家最先提到的总是{name}，谁家的事都知道，而且一件也不会忘。",
        "{name}当年从{town2}过来，本打算只住一个月，那已经是{n}年前的事了。",
        "问{name}这些年变了什么，{name}想了很久才说：工具轻了，冬天短了。",
        "{intro}用的还是老辈人传下来的{tool}，不用的时候就拿布包好。",
        "{name}说，年轻人还是有来学的，只是比以前少，而且不是每个都留得下来。",
        "“{quote}，”{name}对我说完，自己先笑了，好像不好意思说了这么正经的话。",
        "{name}一口咬定，最好的本事是跟{name2}学的，{name2}是{role2}，从来不往纸上写一个字。",
        "每天早上开门的是{name}，常常天还没亮；晚上最后锁门的，也是{name}。",
    ],
    "process": [
        "活儿从{material}开始，要先检查、挑拣、放好，别的事才能接着做。",
        "{activity}看起来容易，其实慢得很，大半的本事在于知道什么时候该停手。",
        "每一道工序都离不开{tool}，好的{tool}用心保养，能用上一辈子。",
        "每一步都靠手工，顺序从来不变，顺序比快慢要紧得多。",
        "顺的时候一天能做出{n}{items}，不顺的时候大概只有一半，也没人抱怨。",
        "新手总是做得太快，做出来的东西总有些不匀，只有老手一眼看得出来。",
        "做到一半会有一段必须等的时候，而这段等待本身就是手艺的一部分。",
        "做坏的东西很少直接扔掉，而是放在一边琢磨，常常还能派上别的用场。",
        "尺寸都用粉笔写在墙上，是一种只有两三个人看得懂的简写。",
        "很多事要看天：遇上{weather}，工夫要多花一倍；刮起干风，又能省下一半。",
        "每天收工前，{tool}要擦干净，地要扫好，做好的东西还要点两遍。",
        "什么都不浪费，连边角料也会被人拿回去，用在菜园、柴房或者灶台上。",
    ],
    "season": [
        "到了{season}，节奏就变了，长长的夜晚都用来修补那些拖了一年的东西。",
        "一到{month}，头一批外地人就来了，本地人也学会了耐着性子笑着给人指路。",
        "{season}常有{weather}，总有那么一两个星期，外面的活几乎什么也干不成。",
        "最忙的是{month}，能搭把手的人都会被叫来帮忙。",
        "{season}天黑得早，四点钟就点上了灯，{feature}那边的窗户一片暖黄。",
        "每年{month}都有个小小的热闹，有乐声，有一张长桌，饭菜多得谁也吃不完。",
        "清闲的月份并不闲着：{tool}要磨，账目也总算要在这时候算清。",
        "从前到了{month}，孩子们会放一天假来帮忙，有些人至今还说那是一年里最好的一天。",
        "{weather}一来，活儿就搬进屋里做，话题也就转到了老故事上。",
        "等{season}过完，仓里满了，屋顶也修好了，{town}总算可以松一口气。",
    ],
    "detail": [
        "一个架子上摆着一排罐子，每个标签都是不同的人写的，有的比这房子还老。",
        "门边钉着一块小铜牌，上面刻着一个年份，这个年份几乎可以肯定是错的。",
        "一只猫名义上不归任何人，却睡在最暖和的窗台上，谁都喂它。",
        "来客登记簿从{year}年记起，里面有天气、抱怨、求婚，还有一首短诗。",
        "工作台上方钉着一条褪了色的{colour}布条，没人说得清是谁钉的、为什么钉。",
        "一块手写的木牌列着{year}年以来每一任看守的名字，下面正好还能再写{n}个。",
        "文件里夹着一封{town2}小孩写来的信，问这里是不是真的闹鬼。",
        "靠窗的地板被踩出了一道浅浅的凹痕，一百多年来人们都站在那里往外看。",
        "一件磨得没法再用的旧{tool}挂在钉子上，像是一种纪念。",
        "抽屉里有一叠菜谱、说明书和土方子，全都混在一起，没有任何顺序。",
    ],
    "reflect": [
        "{subject}让人印象深的，不是它活了下来，而是它对活下来这件事一点也不张扬。",
        "说这是一种正在消失的生活很容易，可{town}好像没有一个人这么想。",
        "也许道理很简单：日复一日的用心，加起来就比任何一天都大。",
        "这里有一种知识，很难写进书里，这大概也是为什么很少有书提到它。",
        "当年说它“不划算”的专家，按他们的算法一点没错，可这丝毫不重要。",
        "对{town}人来说，{activity}与其说是传统，不如说是习惯，而习惯更难丢。",
        "这样的地方提醒我们，并不是每一件有用的事都非得越做越大。",
        "让{subject}一直撑下来的，不是那几场有名的风暴，而是那些平平常常的日子。",
        "不管往后五十年发生什么，大概总还会有人在这里{activity}，一边干活一边埋怨天气。",
    ],
    "close": [
        "我离开的时候，天色已暗，有人已经在窗口点上了灯。",
        "在回{town2}的路上，我回头看了一眼，{subject}还在那里，和来时一模一样。",
        "门外的长凳现在空着，不过不会空太久。",
        "{name}在门口朝我挥挥手，转身又去忙手里的活了。",
        "明天同一个时辰，同一扇门还会打开，说到底，这就是全部的意义。",
        "潮水正漫过{feature}，最后一拨客人也往家走了。",
        "身后先是{sound}，然后就只剩下风声了。",
    ],
}
ZH_NTH = ["三", "四", "五", "六", "七", "九", "十一", "十四"]


def zh_essay(rng: random.Random) -> str:
    topic = rng.choice(ZH_TOPICS)
    towns = rng.sample(ZH_TOWNS, 2)
    names = rng.sample(ZH_PEOPLE, 2)
    base = {
        "town": towns[0],
        "town2": towns[1],
        "subject": topic.subject,
        "items": topic.items,
        "activity": topic.activity,
        "activity2": rng.choice(ZH_TOPICS).activity,
        "tool": topic.tool,
        "material": topic.material,
        "feature": topic.feature,
        "name": names[0],
        "name2": names[1],
        "role": rng.choice(ZH_ROLES),
        "role2": rng.choice(ZH_ROLES),
    }

    introduced = [False]

    def fill(template: str) -> str:
        intro = f"{base['name']}是{base['role']}，" if not introduced[0] else base["name"]
        if "{intro}" in template:
            introduced[0] = True
        year = rng.randint(1780, 1890)
        values = dict(
            base,
            season=rng.choice(ZH_SEASONS),
            month=rng.choice(ZH_MONTHS),
            weather=rng.choice(ZH_WEATHER),
            n=rng.choice(ZH_NUMBERS),
            n2=str(rng.randint(3, 40) * 10),
            year=str(year),
            year2=str(year + rng.randint(30, 120)),
            decade=rng.choice(ZH_DECADES),
            colour=rng.choice(ZH_COLOURS),
            sound=rng.choice(ZH_SOUNDS),
            quote=rng.choice(ZH_QUOTES),
            nth=rng.choice(ZH_NTH),
            intro=intro,
        )
        return template.format(**values)

    paragraphs = _paragraphs(rng, ZH_ROLES_SENTENCES, fill, introduced, "zh")
    title = rng.choice(ZH_TITLES).format(**base)
    return f"# {title}\n\n" + "\n\n".join(paragraphs)


def generate(language: str) -> str:
    """The whole corpus for one language: essays separated by blank lines, each under '# title'."""
    rng = random.Random(f"{SEED}:{language}")
    make = en_essay if language == "en" else zh_essay
    essays: list[str] = []
    size = 0
    while size < TARGET_BYTES[language]:
        essay = make(rng)
        essays.append(essay)
        size += len(essay.encode("utf-8")) + 2
    return "\n\n".join(essays) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if the shipped files differ")
    parser.add_argument("--out", type=Path, default=HERE)
    args = parser.parse_args(argv)
    status = 0
    for language in ("en", "zh"):
        text = generate(language)
        path = args.out / f"{language}.txt"
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                print(f"{path} is out of date; rerun make_corpus.py", file=sys.stderr)
                status = 1
        else:
            path.write_bytes(text.encode("utf-8"))
            print(f"wrote {path}: {len(text.encode('utf-8'))} bytes, {len(text)} characters")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
