"""Writes testdata/fortyfield/codegolf/177765/answers.1.json, the snapshot of the forty
benchmark field, from answers.py: the Stack Exchange API's /questions/{id}/answers reply
(filter withbody), as kothd's scraper reads it from a recorded snapshot.

    python3 testdata/fortyfield/make_field.py

It also writes testdata/fortyfloor, the same number of answers whose bots do next to
nothing (each returns a fixed list of throws, 1 to 6 of them, like the field's ListBot): a
bench on it measures what kothd and the harness cost per decision, with no bot code to
speak of.

The output is deterministic (ids, dates and users come from each answer's position), so
regenerating it changes nothing unless answers.py changed.
"""
import hashlib
import html
import json
import os
import re

from answers import ANSWERS

QUESTION = 177765
HERE = os.path.dirname(os.path.abspath(__file__))


def body(a):
    code = a["code"].strip("\n") + "\n"
    names = re.findall(r"^class (\w+)\(Bot\):", code, re.M)
    heading = a["heading"] or names[0]
    parts = ["<h1>%s</h1>" % html.escape(heading, quote=False), "",
             "<p>%s</p>" % html.escape(a["prose"], quote=False), "",
             '<pre class="lang-py prettyprint-override"><code>%s</code></pre>' % html.escape(code, quote=False)]
    if a["after"]:
        parts += ["", "<p>%s</p>" % html.escape(a["after"], quote=False)]
    return "\n".join(parts) + "\n"


def item(i, a):
    user = 90001 + 37 * i
    slug = re.sub(r"[^a-z0-9]+", "-", a["author"].lower()).strip("-") or "user"
    created = 1546909621 + 5400 * i
    gravatar = hashlib.md5(a["author"].encode("utf-8")).hexdigest()
    return {
        "owner": {"account_id": 9200000 + user, "reputation": 101 + 53 * i, "user_id": user,
                  "user_type": "registered",
                  "profile_image": "https://www.gravatar.com/avatar/%s?s=256&d=identicon&r=PG" % gravatar,
                  "display_name": html.escape(a["author"]),
                  "link": "https://codegolf.stackexchange.com/users/%d/%s" % (user, slug)},
        "is_accepted": False, "score": a["score"], "last_activity_date": created + 3600,
        "last_edit_date": created + 3600, "creation_date": created,
        "answer_id": QUESTION + 100 + 29 * i, "question_id": QUESTION,
        "content_license": "CC BY-SA 4.0", "body": body(a),
    }


FLOOR_CODE = """
class Fixed%(n)02dBot(Bot):
    def make_throw(self, scores, last_round):
        return %(plan)s
"""


def floor():
    """The floor field: as many answers as the real-style one, each a bot that returns a
    fixed list (throws 1 to 6 times, then stops)."""
    return [dict(author="Floor %02d" % n, prose="A fixed plan.", heading=None, score=0, after="",
                 code=FLOOR_CODE % {"n": n, "plan": [True] * (1 + n % 6) + [False]})
            for n in range(len(ANSWERS))]


def write(root, answers):
    out = {"items": [item(i, a) for i, a in enumerate(answers)], "has_more": False,
           "quota_max": 10000, "quota_remaining": 9950}
    d = os.path.join(root, "codegolf", str(QUESTION))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "answers.1.json"), "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")


def main():
    write(HERE, ANSWERS)
    write(os.path.join(os.path.dirname(HERE), "fortyfloor"), floor())


if __name__ == "__main__":
    main()
