"""The most common function words of the languages we see most, for search queries only.

They are still indexed (a quoted phrase such as "the who" finds its pages); a query made only
of them cannot be ranked by relevance, and ranking one would score every page.
"""

from __future__ import annotations

_BY_LANGUAGE = """
    a an and are as at be been but by can did do does for from had has have he her his how i
    if in into is it its me my no not of on or our she so than that the their them then there
    these they this those to up us was we were what when where which who why will with would
    you your

    aber alle als also am an auch auf aus bei bin bis bist da dann das dass dem den der des
    die dies diese dieser du durch ein eine einem einen einer eines er es für hat hatte ich
    ihr ihre im in ist ja kann man mit nach nicht noch nur ob oder sich sie sind so um und
    uns von vor war was wenn wer wie wir wird zu zum zur über

    au aux avec ce ces dans de des du elle en est et eux il ils je la le les leur lui mais me
    même mon ne nos notre nous on ou par pas pour qu que qui sa se ses son sont sur ta te tu
    un une vos votre vous été être

    al como con del el ella ellos es esta este fue ha hay la las lo los más mi muy no o para
    pero por que se sin su sus un una y ya

    che di e gli ha il lo nel nella non per più sono una

    dat de een en het in is met niet op te van voor zijn

    ao as com da das do dos em na nas no nos os para pela pelo por se um uma
"""
STOPWORDS = frozenset(_BY_LANGUAGE.split())
