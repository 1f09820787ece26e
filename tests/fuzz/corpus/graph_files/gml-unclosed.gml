Creator "x"
graph [
  node [ id 1 ]
