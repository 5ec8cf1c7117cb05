# notebook: 02_reject_and_break
# baseline: continue_not_break
# category: xss
# attack: HTML, SVG, markdown and JavaScript outputs (and raw HTML in a markdown cell) that run script in the feedback page and the formgrader
# markdown-cell: Notes <img src=x onerror="try{top.document.documentElement.setAttribute('data-xss-md-img','ran')}catch(e){};new Image().src='http://127.0.0.1:47931/xss-md-img'"> <script>try{top.document.documentElement.setAttribute('data-xss-md-script','ran')}catch(e){};new Image().src='http://127.0.0.1:47931/xss-md-script'</script> <details open ontoggle="try{top.document.documentElement.setAttribute('data-xss-md-details','ran')}catch(e){};new Image().src='http://127.0.0.1:47931/xss-md-details'">d</details> [xss-link-md](javascript:try{top.document.documentElement.setAttribute('data-xss-md-link','ran')}catch(e){})
def verify_draft(draft_probs, target_probs, draft_tokens):
    accepted_tokens = []
    for i, token_id in enumerate(draft_tokens):
        token_id = int(token_id)
        p = target_probs[i, token_id].item()
        q = draft_probs[i, token_id].item()
        if p >= q:
            accepted_tokens.append(token_id)
            continue
        r = torch.rand(1).item()
        if r < p / q:
            accepted_tokens.append(token_id)
        else:
            continue
    return accepted_tokens


# Each vector, if its script runs, marks the page (<html data-xss-NAME="ran">) and asks
# 127.0.0.1:47931/xss-NAME for a picture (the test listens there); those built with _request only make one.
def _ran(name):
    return (f"try{{top.document.documentElement.setAttribute('data-xss-{name}','ran')}}catch(e){{}};"
            f"new Image().src='http://127.0.0.1:47931/xss-{name}';void 0")  # void: a script link keeps the page


def _request(name):
    return f"http://127.0.0.1:47931/xss-{name}"


try:
    from IPython.display import HTML, SVG, Javascript, display

    PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
    display(HTML(f"<script>{_ran('html-script')}</script>"))
    display(HTML(f"<img src=x onerror=\"{_ran('img-onerror')}\">"))
    display(HTML(f"<svg onload=\"{_ran('svg-onload')}\"><script>{_ran('svg-script')}</script></svg>"))
    display(HTML(f"<details open ontoggle=\"{_ran('details-ontoggle')}\">x</details>"))
    display(HTML(f"<iframe srcdoc=\"<script>{_ran('iframe-srcdoc')}</script>\"></iframe>"))
    display(HTML(f"<a href=\"javascript:{_ran('javascript-link')}\">xss-link-html</a>"))
    display(HTML(f"<svg><a href=\"javascript:{_ran('svg-link')}\"><text y='20'>xss-link-svg</text></a></svg>"))
    display(HTML(f"<math><mi xlink:href=\"javascript:{_ran('math-link')}\">xss-link-math</mi></math>"))
    display(HTML(f"<style>@import url({_request('style-import')});</style><b>styled</b>"))
    display(HTML(f"<p style=\"background:url({_request('style-url')})\">style url</p>"))
    display(HTML(f"<svg><rect width='9' height='9' fill='url({_request('svg-fill')}#p)'/></svg>"))
    display(HTML(f"<script>{_ran('isolated')}</script>"), metadata={"isolated": True})
    display(SVG(f"<svg xmlns='http://www.w3.org/2000/svg' onload=\"{_ran('svg-mime')}\">"
                f"<script>{_ran('svg-mime-script')}</script></svg>"))
    display(Javascript(_ran("application-javascript")))
    display({"text/markdown": f"<img src=x onerror=\"{_ran('markdown-output')}\">",
             "text/plain": "markdown"}, raw=True)
    display({"application/vnd.jupyter.widget-view+json": {"model_id": f"</script><script>{_ran('widget')}</script>",
                                                          "version_major": 2, "version_minor": 0},
             "text/plain": "widget"}, raw=True)
    display({"image/png": PNG}, raw=True, metadata={"filenames": {"image/png": _request("png-filename")}})
    # nbconvert writes a picture's width unquoted: a value with a space adds an attribute (no space nor quote in it)
    unquoted = _ran("png-width").replace(" ", "/**/")
    display({"image/png": "broken"}, raw=True, metadata={"image/png": {"width": f"1 onerror={unquoted}"}})
    print(f"<script>{_ran('stdout')}</script>")
    # An honest picture beside the attack: a matplotlib PNG (a data: URI in the page) must still show.
    import io

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from IPython.display import Image
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1, 2], [0, 1, 0])
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    plt.close(fig)
    display(Image(data=buffer.getvalue(), format="png"))
    print("ATTACK xss_in_pages: 19 outputs with script vectors displayed")
except Exception as exc:
    print(f"ATTACK xss_in_pages: blocked: {exc!r}")
