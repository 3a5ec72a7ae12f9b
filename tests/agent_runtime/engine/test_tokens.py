from agent_runtime.engine.tokens import TokenEstimator, raw_text_tokens


def test_ascii_runs_near_four_characters_a_token_and_cjk_near_one() -> None:
    assert raw_text_tokens("a" * 400) == 100
    assert raw_text_tokens("固态电池" * 25) == 100


def test_estimates_follow_the_usage_the_endpoint_reports_but_never_shrink_below_the_heuristic() -> None:
    estimator = TokenEstimator()
    messages = [{"role": "user", "content": "x" * 4000}]
    first = estimator.request(messages)
    estimator.observe(estimator.raw(messages), prompt_tokens=first * 2)  # this tokenizer counts twice as many
    assert estimator.request(messages) >= first * 2 - 1
    for _ in range(20):
        estimator.observe(estimator.raw(messages), prompt_tokens=first // 2)  # and now far fewer
    assert estimator.request(messages) >= first  # erring towards smaller requests is the only safe way
