SELECT /* hint */ a -- trailing
, b # mysql comment
FROM t /* unterminated