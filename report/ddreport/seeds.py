"""The seeds' numbers, kept once as data in report/seeds/.

seeds.csv lists the five reports (title, authors, year, venue; source,
the citation the report prints; the question each asked);
<seed>-<name>.csv holds one of a report's tables or the numbers its text
states, with `# ref:` naming the table, figure or section they come
from. A lab's rules read them from here and nowhere else."""
import glob
import os

from . import csvdata


class Seed:
    def __init__(self, row, tables):
        self.id = row["seed"]
        self.title = row["title"]
        self.source = row["source"]
        self.question = row["question"]
        self.tables = tables      # name -> csvdata.Data
        self.claims = []          # the register's rows of this seed (claims.csv)

    def table(self, name):
        try:
            return self.tables[name]
        except KeyError:
            raise csvdata.DataError(f"report/seeds/{self.id}-{name}.csv: missing") from None

    def ref(self, name):
        """The seed's table, figure or section that a file quotes."""
        return self.table(name).meta.get("ref", name)

    def value(self, key, name="findings"):
        """A number the seed states in its text (a findings file's row)."""
        return csvdata.num(self.table(name).one(key=key)["value"])

    def cite(self):
        return f"seed {self.id} ({self.title}; {self.source})"


def load(folder):
    """{seed id: Seed} from folder (report/seeds)."""
    index = csvdata.read(os.path.join(folder, "seeds.csv"), need=("seed", "title", "source", "question"))
    seeds = {}
    for row in index.rows:
        tables = {}
        for path in sorted(glob.glob(os.path.join(folder, row["seed"] + "-*.csv"))):
            name = os.path.basename(path)[len(row["seed"]) + 1:-len(".csv")]
            tables[name] = csvdata.read(path)
        seeds[row["seed"]] = Seed(row, tables)
    path = os.path.join(folder, REGISTER)
    if os.path.exists(path):
        need = ("lab", "claim", "seed", "kind", "words", "where", "comparator", "conditions", "rule", "why_not_judged")
        for row in csvdata.read(path, need=need).rows:
            if row["seed"] in seeds:
                seeds[row["seed"]].claims.append(row)
    return seeds


# The claims register: every headline claim of each seed, with the rule that
# judges it or why none does (report/README.md, "The claims register").
REGISTER = "claims.csv"
