"""How a review compares the pairs its memo does not know: each note read once, in this
process and, where it pays and is safe, a second one (:mod:`.pair_batch`: a fork, or
beside other threads a new interpreter, :mod:`.pair_spawn`), which hands back plain data
(:mod:`.process_answer`). What a pair's answer is never depends on where it was computed."""
