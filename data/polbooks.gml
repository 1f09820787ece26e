Creator "Mark Newman on Wed Oct 18 16:42:04 2006"
graph
[
  directed 0
  node
  [
    id 0
    label "1000 Years for Revenge"
    value "n"
  ]
  node
  [
    id 1
    label "Bush vs. the Beltway"
    value "c"
  ]
  node
  [
    id 2
    label "Charlie Wilson's War"
    value "c"
  ]
  node
  [
    id 3
    label "Losing Bin Laden"
    value "c"
  ]
  node
  [
    id 4
    label "Sleeping With the Devil"
    value "n"
  ]
  node
  [
    id 5
    label "The Man Who Warned America"
    value "c"
  ]
  node
  [
    id 6
    label "Why America Slept"
    value "n"
  ]
  node
  [
    id 7
    label "Ghost Wars"
    value "n"
  ]
  node
  [
    id 8
    label "A National Party No More"
    value "c"
  ]
  node
  [
    id 9
    label "Bush Country"
    value "c"
  ]
  node
  [
    id 10
    label "Dereliction of Duty"
    value "c"
  ]
  node
  [
    id 11
    label "Legacy"
    value "c"
  ]
  node
  [
    id 12
    label "Off with Their Heads"
    value "c"
  ]
  node
  [
    id 13
    label "Persecution"
    value "c"
  ]
  node
  [
    id 14
    label "Rumsfeld's War"
    value "c"
  ]
  node
  [
    id 15
    label "Breakdown"
    value "c"
  ]
  node
  [
    id 16
    label "Betrayal"
    value "c"
  ]
  node
  [
    id 17
    label "Shut Up and Sing"
    value "c"
  ]
  node
  [
    id 18
    label "Meant To Be"
    value "n"
  ]
  node
  [
    id 19
    label "The Right Man"
    value "c"
  ]
  node
  [
    id 20
    label "Ten Minutes from Normal"
    value "c"
  ]
  node
  [
    id 21
    label "Hillary's Scheme"
    value "c"
  ]
  node
  [
    id 22
    label "The French Betrayal of America"
    value "c"
  ]
  node
  [
    id 23
    label "Tales from the Left Coast"
    value "c"
  ]
  node
  [
    id 24
    label "Hating America"
    value "c"
  ]
  node
  [
    id 25
    label "The Third Terrorist"
    value "c"
  ]
  node
  [
    id 26
    label "Endgame"
    value "c"
  ]
  node
  [
    id 27
    label "Spin Sisters"
    value "c"
  ]
  node
  [
    id 28
    label "All the Shah's Men"
    value "n"
  ]
  node
  [
    id 29
    label "Dangerous Dimplomacy"
    value "c"
  ]
  node
  [
    id 30
    label "The Price of Loyalty"
    value "l"
  ]
  node
  [
    id 31
    label "House of Bush, House of Saud"
    value "l"
  ]
  node
  [
    id 32
    label "The Death of Right and Wrong"
    value "c"
  ]
  node
  [
    id 33
    label "Useful Idiots"
    value "c"
  ]
  node
  [
    id 34
    label "The O'Reilly Factor"
    value "c"
  ]
  node
  [
    id 35
    label "Let Freedom Ring"
    value "c"
  ]
  node
  [
    id 36
    label "Those Who Trespass"
    value "c"
  ]
  node
  [
    id 37
    label "Bias"
    value "c"
  ]
  node
  [
    id 38
    label "Slander"
    value "c"
  ]
  node
  [
    id 39
    label "The Savage Nation"
    value "c"
  ]
  node
  [
    id 40
    label "Deliver Us from Evil"
    value "c"
  ]
  node
  [
    id 41
    label "Give Me a Break"
    value "c"
  ]
  node
  [
    id 42
    label "The Enemy Within"
    value "c"
  ]
  node
  [
    id 43
    label "The Real America"
    value "c"
  ]
  node
  [
    id 44
    label "Who's Looking Out for You?"
    value "c"
  ]
  node
  [
    id 45
    label "The Official Handbook Vast Right Wing Conspiracy"
    value "c"
  ]
  node
  [
    id 46
    label "Power Plays"
    value "n"
  ]
  node
  [
    id 47
    label "Arrogance"
    value "c"
  ]
  node
  [
    id 48
    label "The Perfect Wife"
    value "n"
  ]
  node
  [
    id 49
    label "The Bushes"
    value "c"
  ]
  node
  [
    id 50
    label "Things Worth Fighting For"
    value "c"
  ]
  node
  [
    id 51
    label "Surprise, Security, the American Experience"
    value "n"
  ]
  node
  [
    id 52
    label "Allies"
    value "c"
  ]
  node
  [
    id 53
    label "Why Courage Matters"
    value "c"
  ]
  node
  [
    id 54
    label "Hollywood Interrupted"
    value "c"
  ]
  node
  [
    id 55
    label "Fighting Back"
    value "c"
  ]
  node
  [
    id 56
    label "We Will Prevail"
    value "c"
  ]
  node
  [
    id 57
    label "The Faith of George W Bush"
    value "c"
  ]
  node
  [
    id 58
    label "Rise of the Vulcans"
    value "c"
  ]
  node
  [
    id 59
    label "Downsize This!"
    value "l"
  ]
  node
  [
    id 60
    label "Stupid White Men"
    value "l"
  ]
  node
  [
    id 61
    label "Rush Limbaugh Is a Big Fat Idiot"
    value "l"
  ]
  node
  [
    id 62
    label "The Best Democracy Money Can Buy"
    value "l"
  ]
  node
  [
    id 63
    label "The Culture of Fear"
    value "l"
  ]
  node
  [
    id 64
    label "America Unbound"
    value "l"
  ]
  node
  [
    id 65
    label "The Choice"
    value "l"
  ]
  node
  [
    id 66
    label "The Great Unraveling"
    value "l"
  ]
  node
  [
    id 67
    label "Rogue Nation"
    value "l"
  ]
  node
  [
    id 68
    label "Soft Power"
    value "l"
  ]
  node
  [
    id 69
    label "Colossus"
    value "n"
  ]
  node
  [
    id 70
    label "The Sorrows of Empire"
    value "l"
  ]
  node
  [
    id 71
    label "Against All Enemies"
    value "l"
  ]
  node
  [
    id 72
    label "American Dynasty"
    value "l"
  ]
  node
  [
    id 73
    label "Big Lies"
    value "l"
  ]
  node
  [
    id 74
    label "The Lies of George W. Bush"
    value "l"
  ]
  node
  [
    id 75
    label "Worse Than Watergate"
    value "l"
  ]
  node
  [
    id 76
    label "Plan of Attack"
    value "n"
  ]
  node
  [
    id 77
    label "Bush at War"
    value "c"
  ]
  node
  [
    id 78
    label "The New Pearl Harbor"
    value "l"
  ]
  node
  [
    id 79
    label "Bushwomen"
    value "l"
  ]
  node
  [
    id 80
    label "The Bubble of American Supremacy"
    value "l"
  ]
  node
  [
    id 81
    label "Living History"
    value "l"
  ]
  node
  [
    id 82
    label "The Politics of Truth"
    value "l"
  ]
  node
  [
    id 83
    label "Fanatics and Fools"
    value "l"
  ]
  node
  [
    id 84
    label "Bushwhacked"
    value "l"
  ]
  node
  [
    id 85
    label "Disarming Iraq"
    value "l"
  ]
  node
  [
    id 86
    label "Lies and the Lying Liars Who Tell Them"
    value "l"
  ]
  node
  [
    id 87
    label "MoveOn's 50 Ways to Love Your Country"
    value "l"
  ]
  node
  [
    id 88
    label "The Buying of the President 2004"
    value "l"
  ]
  node
  [
    id 89
    label "Perfectly Legal"
    value "l"
  ]
  node
  [
    id 90
    label "Hegemony or Survival"
    value "l"
  ]
  node
  [
    id 91
    label "The Exception to the Rulers"
    value "l"
  ]
  node
  [
    id 92
    label "Freethinkers"
    value "l"
  ]
  node
  [
    id 93
    label "Had Enough?"
    value "l"
  ]
  node
  [
    id 94
    label "It's Still the Economy, Stupid!"
    value "l"
  ]
  node
  [
    id 95
    label "We're Right They're Wrong"
    value "l"
  ]
  node
  [
    id 96
    label "What Liberal Media?"
    value "l"
  ]
  node
  [
    id 97
    label "The Clinton Wars"
    value "l"
  ]
  node
  [
    id 98
    label "Weapons of Mass Deception"
    value "l"
  ]
  node
  [
    id 99
    label "Dude, Where's My Country?"
    value "l"
  ]
  node
  [
    id 100
    label "Thieves in High Places"
    value "l"
  ]
  node
  [
    id 101
    label "Shrub"
    value "l"
  ]
  node
  [
    id 102
    label "Buck Up Suck Up"
    value "l"
  ]
  node
  [
    id 103
    label "The Future of Freedom"
    value "n"
  ]
  node
  [
    id 104
    label "Empire"
    value "n"
  ]
  edge
  [
    source 1
    target 0
  ]
  edge
  [
    source 2
    target 0
  ]
  edge
  [
    source 3
    target 0
  ]
  edge
  [
    source 3
    target 1
  ]
  edge
  [
    source 4
    target 0
  ]
  edge
  [
    source 4
    target 2
  ]
  edge
  [
    source 5
    target 0
  ]
  edge
  [
    source 5
    target 1
  ]
  edge
  [
    source 5
    target 2
  ]
  edge
  [
    source 5
    target 3
  ]
  edge
  [
    source 5
    target 4
  ]
  edge
  [
    source 6
    target 0
  ]
  edge
  [
    source 6
    target 1
  ]
  edge
  [
    source 6
    target 4
  ]
  edge
  [
    source 6
    target 5
  ]
  edge
  [
    source 7
    target 2
  ]
  edge
  [
    source 7
    target 5
  ]
  edge
  [
    source 7
    target 6
  ]
  edge
  [
    source 8
    target 3
  ]
  edge
  [
    source 9
    target 3
  ]
  edge
  [
    source 9
    target 8
  ]
  edge
  [
    source 10
    target 3
  ]
  edge
  [
    source 10
    target 6
  ]
  edge
  [
    source 10
    target 8
  ]
  edge
  [
    source 11
    target 3
  ]
  edge
  [
    source 11
    target 8
  ]
  edge
  [
    source 11
    target 9
  ]
  edge
  [
    source 11
    target 10
  ]
  edge
  [
    source 12
    target 3
  ]
  edge
  [
    source 12
    target 6
  ]
  edge
  [
    source 12
    target 8
  ]
  edge
  [
    source 12
    target 9
  ]
  edge
  [
    source 12
    target 10
  ]
  edge
  [
    source 12
    target 11
  ]
  edge
  [
    source 13
    target 3
  ]
  edge
  [
    source 13
    target 8
  ]
  edge
  [
    source 13
    target 11
  ]
  edge
  [
    source 13
    target 12
  ]
  edge
  [
    source 14
    target 3
  ]
  edge
  [
    source 14
    target 8
  ]
  edge
  [
    source 14
    target 9
  ]
  edge
  [
    source 14
    target 11
  ]
  edge
  [
    source 14
    target 12
  ]
  edge
  [
    source 14
    target 7
  ]
  edge
  [
    source 15
    target 3
  ]
  edge
  [
    source 15
    target 10
  ]
  edge
  [
    source 15
    target 12
  ]
  edge
  [
    source 16
    target 3
  ]
  edge
  [
    source 16
    target 10
  ]
  edge
  [
    source 16
    target 15
  ]
  edge
  [
    source 17
    target 3
  ]
  edge
  [
    source 17
    target 11
  ]
  edge
  [
    source 17
    target 12
  ]
  edge
  [
    source 17
    target 13
  ]
  edge
  [
    source 18
    target 3
  ]
  edge
  [
    source 18
    target 6
  ]
  edge
  [
    source 18
    target 12
  ]
  edge
  [
    source 19
    target 3
  ]
  edge
  [
    source 19
    target 10
  ]
  edge
  [
    source 20
    target 3
  ]
  edge
  [
    source 20
    target 8
  ]
  edge
  [
    source 20
    target 9
  ]
  edge
  [
    source 20
    target 11
  ]
  edge
  [
    source 21
    target 3
  ]
  edge
  [
    source 21
    target 8
  ]
  edge
  [
    source 21
    target 10
  ]
  edge
  [
    source 21
    target 11
  ]
  edge
  [
    source 22
    target 3
  ]
  edge
  [
    source 22
    target 6
  ]
  edge
  [
    source 22
    target 8
  ]
  edge
  [
    source 22
    target 11
  ]
  edge
  [
    source 23
    target 3
  ]
  edge
  [
    source 23
    target 8
  ]
  edge
  [
    source 23
    target 12
  ]
  edge
  [
    source 23
    target 21
  ]
  edge
  [
    source 24
    target 3
  ]
  edge
  [
    source 24
    target 8
  ]
  edge
  [
    source 24
    target 9
  ]
  edge
  [
    source 24
    target 12
  ]
  edge
  [
    source 24
    target 20
  ]
  edge
  [
    source 25
    target 3
  ]
  edge
  [
    source 25
    target 6
  ]
  edge
  [
    source 25
    target 14
  ]
  edge
  [
    source 25
    target 22
  ]
  edge
  [
    source 26
    target 3
  ]
  edge
  [
    source 26
    target 8
  ]
  edge
  [
    source 26
    target 11
  ]
  edge
  [
    source 26
    target 14
  ]
  edge
  [
    source 26
    target 24
  ]
  edge
  [
    source 27
    target 3
  ]
  edge
  [
    source 27
    target 8
  ]
  edge
  [
    source 27
    target 9
  ]
  edge
  [
    source 27
    target 11
  ]
  edge
  [
    source 27
    target 23
  ]
  edge
  [
    source 28
    target 4
  ]
  edge
  [
    source 29
    target 4
  ]
  edge
  [
    source 29
    target 6
  ]
  edge
  [
    source 29
    target 11
  ]
  edge
  [
    source 29
    target 13
  ]
  edge
  [
    source 30
    target 4
  ]
  edge
  [
    source 30
    target 7
  ]
  edge
  [
    source 31
    target 4
  ]
  edge
  [
    source 31
    target 30
  ]
  edge
  [
    source 32
    target 8
  ]
  edge
  [
    source 32
    target 12
  ]
  edge
  [
    source 32
    target 13
  ]
  edge
  [
    source 32
    target 23
  ]
  edge
  [
    source 33
    target 32
  ]
  edge
  [
    source 33
    target 8
  ]
  edge
  [
    source 33
    target 10
  ]
  edge
  [
    source 33
    target 12
  ]
  edge
  [
    source 33
    target 23
  ]
  edge
  [
    source 35
    target 34
  ]
  edge
  [
    source 35
    target 8
  ]
  edge
  [
    source 35
    target 10
  ]
  edge
  [
    source 36
    target 34
  ]
  edge
  [
    source 36
    target 35
  ]
  edge
  [
    source 36
    target 12
  ]
  edge
  [
    source 37
    target 34
  ]
  edge
  [
    source 37
    target 8
  ]
  edge
  [
    source 37
    target 10
  ]
  edge
  [
    source 37
    target 35
  ]
  edge
  [
    source 37
    target 33
  ]
  edge
  [
    source 38
    target 34
  ]
  edge
  [
    source 38
    target 10
  ]
  edge
  [
    source 38
    target 35
  ]
  edge
  [
    source 38
    target 12
  ]
  edge
  [
    source 38
    target 37
  ]
  edge
  [
    source 38
    target 33
  ]
  edge
  [
    source 39
    target 34
  ]
  edge
  [
    source 39
    target 10
  ]
  edge
  [
    source 39
    target 35
  ]
  edge
  [
    source 39
    target 12
  ]
  edge
  [
    source 39
    target 38
  ]
  edge
  [
    source 39
    target 33
  ]
  edge
  [
    source 40
    target 8
  ]
  edge
  [
    source 40
    target 35
  ]
  edge
  [
    source 40
    target 12
  ]
  edge
  [
    source 40
    target 13
  ]
  edge
  [
    source 40
    target 20
  ]
  edge
  [
    source 40
    target 22
  ]
  edge
  [
    source 40
    target 39
  ]
  edge
  [
    source 40
    target 24
  ]
  edge
  [
    source 40
    target 25
  ]
  edge
  [
    source 40
    target 26
  ]
  edge
  [
    source 40
    target 27
  ]
  edge
  [
    source 41
    target 8
  ]
  edge
  [
    source 41
    target 9
  ]
  edge
  [
    source 41
    target 40
  ]
  edge
  [
    source 41
    target 12
  ]
  edge
  [
    source 41
    target 36
  ]
  edge
  [
    source 41
    target 27
  ]
  edge
  [
    source 42
    target 8
  ]
  edge
  [
    source 42
    target 40
  ]
  edge
  [
    source 42
    target 13
  ]
  edge
  [
    source 42
    target 39
  ]
  edge
  [
    source 43
    target 8
  ]
  edge
  [
    source 43
    target 35
  ]
  edge
  [
    source 43
    target 13
  ]
  edge
  [
    source 43
    target 42
  ]
  edge
  [
    source 44
    target 8
  ]
  edge
  [
    source 44
    target 40
  ]
  edge
  [
    source 44
    target 35
  ]
  edge
  [
    source 44
    target 12
  ]
  edge
  [
    source 44
    target 13
  ]
  edge
  [
    source 45
    target 8
  ]
  edge
  [
    source 45
    target 9
  ]
  edge
  [
    source 45
    target 40
  ]
  edge
  [
    source 45
    target 11
  ]
  edge
  [
    source 45
    target 26
  ]
  edge
  [
    source 46
    target 8
  ]
  edge
  [
    source 46
    target 12
  ]
  edge
  [
    source 47
    target 9
  ]
  edge
  [
    source 47
    target 40
  ]
  edge
  [
    source 47
    target 41
  ]
  edge
  [
    source 47
    target 11
  ]
  edge
  [
    source 47
    target 12
  ]
  edge
  [
    source 47
    target 13
  ]
  edge
  [
    source 47
    target 42
  ]
  edge
  [
    source 47
    target 36
  ]
  edge
  [
    source 47
    target 37
  ]
  edge
  [
    source 47
    target 17
  ]
  edge
  [
    source 47
    target 33
  ]
  edge
  [
    source 47
    target 45
  ]
  edge
  [
    source 47
    target 46
  ]
  edge
  [
    source 47
    target 23
  ]
  edge
  [
    source 47
    target 24
  ]
  edge
  [
    source 47
    target 26
  ]
  edge
  [
    source 47
    target 27
  ]
  edge
  [
    source 48
    target 9
  ]
  edge
  [
    source 48
    target 20
  ]
  edge
  [
    source 49
    target 9
  ]
  edge
  [
    source 49
    target 20
  ]
  edge
  [
    source 49
    target 31
  ]
  edge
  [
    source 49
    target 48
  ]
  edge
  [
    source 50
    target 9
  ]
  edge
  [
    source 50
    target 11
  ]
  edge
  [
    source 51
    target 9
  ]
  edge
  [
    source 52
    target 9
  ]
  edge
  [
    source 52
    target 22
  ]
  edge
  [
    source 52
    target 51
  ]
  edge
  [
    source 53
    target 40
  ]
  edge
  [
    source 53
    target 20
  ]
  edge
  [
    source 53
    target 24
  ]
  edge
  [
    source 53
    target 26
  ]
  edge
  [
    source 54
    target 40
  ]
  edge
  [
    source 54
    target 41
  ]
  edge
  [
    source 54
    target 12
  ]
  edge
  [
    source 54
    target 47
  ]
  edge
  [
    source 54
    target 23
  ]
  edge
  [
    source 54
    target 27
  ]
  edge
  [
    source 55
    target 10
  ]
  edge
  [
    source 55
    target 12
  ]
  edge
  [
    source 55
    target 15
  ]
  edge
  [
    source 55
    target 19
  ]
  edge
  [
    source 56
    target 11
  ]
  edge
  [
    source 56
    target 19
  ]
  edge
  [
    source 56
    target 43
  ]
  edge
  [
    source 57
    target 13
  ]
  edge
  [
    source 57
    target 56
  ]
  edge
  [
    source 57
    target 20
  ]
  edge
  [
    source 57
    target 48
  ]
  edge
  [
    source 57
    target 49
  ]
  edge
  [
    source 58
    target 14
  ]
  edge
  [
    source 58
    target 7
  ]
  edge
  [
    source 58
    target 30
  ]
  edge
  [
    source 58
    target 49
  ]
  edge
  [
    source 58
    target 50
  ]
  edge
  [
    source 58
    target 51
  ]
  edge
  [
    source 58
    target 52
  ]
  edge
  [
    source 60
    target 59
  ]
  edge
  [
    source 61
    target 59
  ]
  edge
  [
    source 62
    target 59
  ]
  edge
  [
    source 62
    target 60
  ]
  edge
  [
    source 63
    target 59
  ]
  edge
  [
    source 63
    target 60
  ]
  edge
  [
    source 63
    target 62
  ]
  edge
  [
    source 64
    target 58
  ]
  edge
  [
    source 64
    target 51
  ]
  edge
  [
    source 64
    target 52
  ]
  edge
  [
    source 65
    target 64
  ]
  edge
  [
    source 65
    target 58
  ]
  edge
  [
    source 65
    target 51
  ]
  edge
  [
    source 66
    target 64
  ]
  edge
  [
    source 66
    target 28
  ]
  edge
  [
    source 66
    target 30
  ]
  edge
  [
    source 67
    target 64
  ]
  edge
  [
    source 67
    target 65
  ]
  edge
  [
    source 67
    target 66
  ]
  edge
  [
    source 67
    target 30
  ]
  edge
  [
    source 68
    target 64
  ]
  edge
  [
    source 68
    target 58
  ]
  edge
  [
    source 68
    target 65
  ]
  edge
  [
    source 69
    target 64
  ]
  edge
  [
    source 69
    target 58
  ]
  edge
  [
    source 69
    target 65
  ]
  edge
  [
    source 69
    target 51
  ]
  edge
  [
    source 70
    target 64
  ]
  edge
  [
    source 70
    target 66
  ]
  edge
  [
    source 70
    target 30
  ]
  edge
  [
    source 71
    target 7
  ]
  edge
  [
    source 71
    target 68
  ]
  edge
  [
    source 71
    target 70
  ]
  edge
  [
    source 72
    target 71
  ]
  edge
  [
    source 72
    target 28
  ]
  edge
  [
    source 72
    target 66
  ]
  edge
  [
    source 72
    target 49
  ]
  edge
  [
    source 72
    target 70
  ]
  edge
  [
    source 73
    target 71
  ]
  edge
  [
    source 73
    target 72
  ]
  edge
  [
    source 73
    target 66
  ]
  edge
  [
    source 73
    target 30
  ]
  edge
  [
    source 73
    target 31
  ]
  edge
  [
    source 74
    target 71
  ]
  edge
  [
    source 74
    target 72
  ]
  edge
  [
    source 74
    target 73
  ]
  edge
  [
    source 74
    target 66
  ]
  edge
  [
    source 74
    target 30
  ]
  edge
  [
    source 74
    target 31
  ]
  edge
  [
    source 75
    target 71
  ]
  edge
  [
    source 75
    target 72
  ]
  edge
  [
    source 75
    target 73
  ]
  edge
  [
    source 75
    target 74
  ]
  edge
  [
    source 75
    target 30
  ]
  edge
  [
    source 75
    target 31
  ]
  edge
  [
    source 75
    target 70
  ]
  edge
  [
    source 76
    target 71
  ]
  edge
  [
    source 76
    target 72
  ]
  edge
  [
    source 76
    target 75
  ]
  edge
  [
    source 76
    target 66
  ]
  edge
  [
    source 76
    target 30
  ]
  edge
  [
    source 76
    target 31
  ]
  edge
  [
    source 76
    target 49
  ]
  edge
  [
    source 76
    target 53
  ]
  edge
  [
    source 77
    target 71
  ]
  edge
  [
    source 77
    target 75
  ]
  edge
  [
    source 77
    target 58
  ]
  edge
  [
    source 77
    target 30
  ]
  edge
  [
    source 77
    target 19
  ]
  edge
  [
    source 77
    target 31
  ]
  edge
  [
    source 77
    target 76
  ]
  edge
  [
    source 78
    target 71
  ]
  edge
  [
    source 78
    target 72
  ]
  edge
  [
    source 78
    target 74
  ]
  edge
  [
    source 78
    target 75
  ]
  edge
  [
    source 78
    target 31
  ]
  edge
  [
    source 79
    target 71
  ]
  edge
  [
    source 79
    target 72
  ]
  edge
  [
    source 79
    target 74
  ]
  edge
  [
    source 79
    target 75
  ]
  edge
  [
    source 79
    target 30
  ]
  edge
  [
    source 80
    target 71
  ]
  edge
  [
    source 80
    target 72
  ]
  edge
  [
    source 80
    target 66
  ]
  edge
  [
    source 80
    target 30
  ]
  edge
  [
    source 81
    target 71
  ]
  edge
  [
    source 82
    target 71
  ]
  edge
  [
    source 82
    target 72
  ]
  edge
  [
    source 82
    target 73
  ]
  edge
  [
    source 82
    target 74
  ]
  edge
  [
    source 82
    target 75
  ]
  edge
  [
    source 82
    target 30
  ]
  edge
  [
    source 82
    target 31
  ]
  edge
  [
    source 82
    target 76
  ]
  edge
  [
    source 83
    target 71
  ]
  edge
  [
    source 83
    target 73
  ]
  edge
  [
    source 83
    target 75
  ]
  edge
  [
    source 83
    target 30
  ]
  edge
  [
    source 83
    target 76
  ]
  edge
  [
    source 84
    target 72
  ]
  edge
  [
    source 84
    target 74
  ]
  edge
  [
    source 84
    target 75
  ]
  edge
  [
    source 84
    target 66
  ]
  edge
  [
    source 84
    target 73
  ]
  edge
  [
    source 84
    target 60
  ]
  edge
  [
    source 84
    target 30
  ]
  edge
  [
    source 84
    target 62
  ]
  edge
  [
    source 84
    target 76
  ]
  edge
  [
    source 84
    target 79
  ]
  edge
  [
    source 84
    target 81
  ]
  edge
  [
    source 84
    target 82
  ]
  edge
  [
    source 84
    target 83
  ]
  edge
  [
    source 85
    target 72
  ]
  edge
  [
    source 85
    target 7
  ]
  edge
  [
    source 85
    target 58
  ]
  edge
  [
    source 85
    target 65
  ]
  edge
  [
    source 85
    target 66
  ]
  edge
  [
    source 86
    target 72
  ]
  edge
  [
    source 86
    target 73
  ]
  edge
  [
    source 86
    target 66
  ]
  edge
  [
    source 86
    target 84
  ]
  edge
  [
    source 86
    target 60
  ]
  edge
  [
    source 86
    target 30
  ]
  edge
  [
    source 86
    target 61
  ]
  edge
  [
    source 86
    target 76
  ]
  edge
  [
    source 86
    target 81
  ]
  edge
  [
    source 87
    target 72
  ]
  edge
  [
    source 87
    target 74
  ]
  edge
  [
    source 87
    target 84
  ]
  edge
  [
    source 87
    target 83
  ]
  edge
  [
    source 88
    target 72
  ]
  edge
  [
    source 88
    target 74
  ]
  edge
  [
    source 88
    target 66
  ]
  edge
  [
    source 88
    target 84
  ]
  edge
  [
    source 89
    target 72
  ]
  edge
  [
    source 89
    target 73
  ]
  edge
  [
    source 89
    target 66
  ]
  edge
  [
    source 89
    target 84
  ]
  edge
  [
    source 89
    target 86
  ]
  edge
  [
    source 89
    target 88
  ]
  edge
  [
    source 90
    target 72
  ]
  edge
  [
    source 90
    target 66
  ]
  edge
  [
    source 90
    target 70
  ]
  edge
  [
    source 91
    target 72
  ]
  edge
  [
    source 91
    target 74
  ]
  edge
  [
    source 91
    target 75
  ]
  edge
  [
    source 91
    target 31
  ]
  edge
  [
    source 91
    target 90
  ]
  edge
  [
    source 91
    target 79
  ]
  edge
  [
    source 92
    target 72
  ]
  edge
  [
    source 92
    target 73
  ]
  edge
  [
    source 92
    target 75
  ]
  edge
  [
    source 93
    target 73
  ]
  edge
  [
    source 93
    target 66
  ]
  edge
  [
    source 93
    target 86
  ]
  edge
  [
    source 93
    target 30
  ]
  edge
  [
    source 94
    target 73
  ]
  edge
  [
    source 94
    target 84
  ]
  edge
  [
    source 94
    target 93
  ]
  edge
  [
    source 95
    target 73
  ]
  edge
  [
    source 95
    target 94
  ]
  edge
  [
    source 95
    target 61
  ]
  edge
  [
    source 96
    target 73
  ]
  edge
  [
    source 96
    target 66
  ]
  edge
  [
    source 96
    target 84
  ]
  edge
  [
    source 96
    target 94
  ]
  edge
  [
    source 97
    target 73
  ]
  edge
  [
    source 97
    target 66
  ]
  edge
  [
    source 97
    target 84
  ]
  edge
  [
    source 97
    target 86
  ]
  edge
  [
    source 97
    target 96
  ]
  edge
  [
    source 97
    target 81
  ]
  edge
  [
    source 98
    target 73
  ]
  edge
  [
    source 98
    target 74
  ]
  edge
  [
    source 98
    target 87
  ]
  edge
  [
    source 98
    target 91
  ]
  edge
  [
    source 99
    target 73
  ]
  edge
  [
    source 99
    target 74
  ]
  edge
  [
    source 99
    target 66
  ]
  edge
  [
    source 99
    target 84
  ]
  edge
  [
    source 99
    target 93
  ]
  edge
  [
    source 99
    target 60
  ]
  edge
  [
    source 99
    target 59
  ]
  edge
  [
    source 99
    target 30
  ]
  edge
  [
    source 99
    target 62
  ]
  edge
  [
    source 99
    target 63
  ]
  edge
  [
    source 99
    target 90
  ]
  edge
  [
    source 100
    target 73
  ]
  edge
  [
    source 100
    target 66
  ]
  edge
  [
    source 100
    target 84
  ]
  edge
  [
    source 100
    target 86
  ]
  edge
  [
    source 100
    target 96
  ]
  edge
  [
    source 100
    target 98
  ]
  edge
  [
    source 100
    target 99
  ]
  edge
  [
    source 100
    target 62
  ]
  edge
  [
    source 100
    target 79
  ]
  edge
  [
    source 100
    target 91
  ]
  edge
  [
    source 100
    target 83
  ]
  edge
  [
    source 101
    target 84
  ]
  edge
  [
    source 101
    target 86
  ]
  edge
  [
    source 101
    target 94
  ]
  edge
  [
    source 101
    target 100
  ]
  edge
  [
    source 101
    target 61
  ]
  edge
  [
    source 102
    target 93
  ]
  edge
  [
    source 102
    target 94
  ]
  edge
  [
    source 102
    target 95
  ]
  edge
  [
    source 102
    target 46
  ]
  edge
  [
    source 103
    target 67
  ]
  edge
  [
    source 104
    target 67
  ]
  edge
  [
    source 104
    target 69
  ]
  edge
  [
    source 104
    target 103
  ]
]
