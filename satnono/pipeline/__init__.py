"""The pipeline from a prepared puzzle to each answer: `prepare` (line logic and the
components every pipeline starts from), `solutions`, `counting`, `sampling`, `backbone`,
`analysis`, `streaming` (a solve watched as it runs), `hints`, and `from_image` (puzzles
from pictures, which uses the others to check uniqueness)."""
