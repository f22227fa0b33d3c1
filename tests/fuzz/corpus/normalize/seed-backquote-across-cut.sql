Sіє«ЯШ«ЯSE`t
mysqt
t
, 'Ш,"'e\'_'ЯШ–tZq7litQSEzљ›ЦШЦШ–&,7litQ`t
mysqt
t
zЦШ–&,t