Hello world in brainfuck for chazz from_bf
Cells are 32 bits wide in CHAZZ so this program never relies on wrapping
++++++++[>+++++++++<-]>.                 print H  (cell 1 is 8 times 9)
>++++++++++[>++++++++++<-]>+.            print e  (cell 3 is 10 times 10 plus 1)
+++++++..+++.                            print llo
>++++[>+++++++++++<-]>.                  print comma  (cell 5 is 4 times 11)
------------.                            print space  (cell 5 is 32)
<<<<+++++++++++++++.                     print W  (cell 1 is 72 plus 15)
>>.                                      print o  (cell 3 is still 111)
+++.------.--------.                     print rld
>>+.                                     print !  (cell 5 is 33)
