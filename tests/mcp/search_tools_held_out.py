"""The held-out intents for `search_tools` (issue 42 §5): 40 phrasings an agent might send, 20 in
Chinese and 20 in English, each with the tools that answer it. Written and committed BEFORE the
ranking was changed, and never tuned to: the ranking, its synonym table and its intent rules are
fitted on test_search_tools_queries.py's queries and the issue's own misses, and this list is only
read by test_search_tools_held_out.py, which reports and asserts on it.

Do not edit an entry to make the ranking pass; a wrong expectation may be fixed only with the
reason in the commit message.
"""

from __future__ import annotations

#: intent -> the tools that answer it (any one of them in the top 3 is a hit).
HELD_OUT_EN: dict[str, tuple[str, ...]] = {
    "jot down an idea": ("create_memo",),
    "tick off the grocery task": ("complete_todo_task", "batch_complete_todo_tasks"),
    "bring back a memo I threw away": ("restore_memo",),
    "which tasks are due next week": ("query_todos",),
    "split a task into smaller steps": ("create_todo_subtask",),
    "read the file attached to a task": ("read_todo_attachment", "get_todo_attachment_metadata"),
    "list every tag I use on notes": ("list_tags",),
    "find notes close in meaning to a phrase": ("search_ai_memos",),
    "look through my Kindle highlights for a quote": ("search_reading_notes",),
    "which books have I imported": ("list_reading_books",),
    "add a column to my board": ("create_todo_column",),
    "change a task's priority to high": ("update_todo_task", "batch_update_todo_tasks"),
    "stop reminding me about this task": ("clear_todo_reminders",),
    "undo everything that script just did": ("undo_changes",),
    "recent edits to my data": ("list_changes",),
    "copy a task": ("duplicate_todo_task",),
    "turn an inbox item into a board task": ("move_todo_inbox_item_to_board",),
    "reopen a task I completed by mistake": ("reopen_todo_task",),
    "create a new project space": ("create_todo_space",),
    "fetch several memos by their ids at once": ("batch_get_memos",),
}

HELD_OUT_ZH: dict[str, tuple[str, ...]] = {
    "随手记个想法": ("create_memo",),
    "把这个待办勾掉": ("complete_todo_task", "batch_complete_todo_tasks"),
    "把误删的备忘录找回来": ("restore_memo",),
    "下周要交的任务有哪些": ("query_todos",),
    "给任务加几个子步骤": ("create_todo_subtask",),
    "打开任务附件里的文件": ("read_todo_attachment", "get_todo_attachment_metadata"),
    "我的笔记都用了哪些标签": ("list_tags",),
    "按意思搜相关的笔记": ("search_ai_memos",),
    "在读书摘录里找一句话": ("search_reading_notes",),
    "我导入了哪些书": ("list_reading_books",),
    "看板里加一列": ("create_todo_column",),
    "把任务优先级调高": ("update_todo_task", "batch_update_todo_tasks"),
    "取消这个任务的提醒": ("clear_todo_reminders",),
    "回滚刚才脚本做的改动": ("undo_changes",),
    "最近改了什么": ("list_changes",),
    "复制一个任务": ("duplicate_todo_task",),
    "把收件箱里的一条转成看板任务": ("move_todo_inbox_item_to_board",),
    "重新打开已完成的任务": ("reopen_todo_task",),
    "新建一个项目空间": ("create_todo_space",),
    "一次读取好几条笔记": ("batch_get_memos",),
}

HELD_OUT: dict[str, tuple[str, ...]] = {**HELD_OUT_EN, **HELD_OUT_ZH}


# The second held-out list: 40 more intents, written and committed on 2026-12-05 BEFORE the
# second ranking change (several views per tool, the tuning list grown) and before any of them
# was ranked. The first list had been read for each change since it was written, so it no longer
# says how the ranking does on phrasings nobody has looked at; this one does, once.
HELD_OUT_2_EN: dict[str, tuple[str, ...]] = {
    "save this quote as a note": ("create_memo",),
    "change the text of my last memo": ("update_memo",),
    "show my most recent notes": ("list_memos",),
    "find memos that mention Kyoto": ("search_memos", "search_ai_memos", "search_everything"),
    "rename the tag work to job": ("rename_memo_tag",),
    "attach a photo to a memo": ("upload_memo_resource", "create_memo_upload_session"),
    "what time is it for me and which time zone am I in": ("get_context",),
    "I moved to Tokyo, update my time zone": ("set_time_zone",),
    "mark all of these tasks as done": ("batch_complete_todo_tasks",),
    "remind me about this task tomorrow at 9": ("set_todo_reminders",),
    "move a task to the Doing column": ("move_todo_task",),
    "rename a column on my board": ("update_todo_column",),
    "what is in the todo trash": ("list_todo_trash",),
    "capture a quick thought into the inbox": ("create_todo_inbox_item",),
    "show everything in my inbox": ("list_todo_inbox_items",),
    "put the subtasks in a different order": ("reorder_todo_subtasks",),
    "search memos, tasks and highlights at once": ("search_everything",),
    "show all highlights from one book": ("list_reading_notes",),
    "pick memos for a weekly review": ("select_memos_for_insight",),
    "see the full details of one task": ("get_todo_task",),
}

HELD_OUT_2_ZH: dict[str, tuple[str, ...]] = {
    "记下今天的会议纪要": ("create_memo",),
    "修改一条笔记的内容": ("update_memo",),
    "看看最近写的笔记": ("list_memos",),
    "搜一下提到京都的笔记": ("search_memos", "search_ai_memos", "search_everything"),
    "把标签工作改名为职业": ("rename_memo_tag",),
    "给笔记上传一张图片": ("upload_memo_resource", "create_memo_upload_session"),
    "现在几点，我在哪个时区": ("get_context",),
    "把我的时区改成东京": ("set_time_zone",),
    "把这几个任务一起标记完成": ("batch_complete_todo_tasks",),
    "明天早上九点提醒我这个任务": ("set_todo_reminders",),
    "把任务挪到进行中那一列": ("move_todo_task",),
    "看板上有哪些任务": ("list_todos", "query_todos"),
    "待办回收站里有什么": ("list_todo_trash",),
    "往收件箱里丢一条待办": ("create_todo_inbox_item",),
    "收件箱里都有什么": ("list_todo_inbox_items",),
    "子任务换个顺序": ("reorder_todo_subtasks",),
    "把子任务标为已完成": ("complete_todo_subtask", "set_todo_inbox_subtask_done"),
    "同时搜笔记、待办和书摘": ("search_everything",),
    "看某本书的所有划线": ("list_reading_notes",),
    "挑一些笔记做周回顾": ("select_memos_for_insight",),
}

HELD_OUT_2: dict[str, tuple[str, ...]] = {**HELD_OUT_2_EN, **HELD_OUT_2_ZH}


# The third held-out list: 40 more intents, written and committed on 2026-12-05 (a later session)
# BEFORE any of them was ranked, with the ranking as the second list last measured it (no change
# to the ranking since). It says how the ranking does on phrasings nobody has looked at, once.
HELD_OUT_3_EN: dict[str, tuple[str, ...]] = {
    "throw this memo in the trash": ("delete_memo",),
    "what boards do I have": ("list_todo_spaces",),
    "how big is the image on this memo": ("get_memo_resource_metadata", "list_memo_resources"),
    "download the picture attached to my note": ("read_memo_resource",),
    "give a task the label urgent": ("update_todo_task", "batch_update_todo_tasks"),
    "make a new label for tasks called errands": ("create_todo_tag",),
    "which labels exist on my tasks": ("list_todo_tags",),
    "finish the checklist step book hotel": ("complete_todo_subtask",),
    "edit the title of an inbox item": ("update_todo_inbox_item",),
    "mark the inbox item done": ("complete_todo_inbox_item",),
    "recover a task from the trash": ("restore_todo_task", "restore_todo_item"),
    "add a step under an inbox item": ("create_todo_inbox_subtask",),
    "upload a PDF to a task": ("upload_todo_attachment",),
    "abort an upload I started": ("cancel_memo_upload_session",),
    "every note I wrote about budgets, by keyword": ("search_memos", "search_everything"),
    "tasks tagged home that are overdue": ("query_todos",),
    "remove a column from the board": ("delete_todo_column",),
    "rename my Work board": ("update_todo_space",),
    "who changed this memo and when": ("list_changes",),
    "pull up memo 42": ("get_memo",),
}

HELD_OUT_3_ZH: dict[str, tuple[str, ...]] = {
    "把这条笔记删掉": ("delete_memo",),
    "我有哪些看板": ("list_todo_spaces",),
    "查看笔记附件的大小和类型": ("get_memo_resource_metadata", "list_memo_resources"),
    "下载笔记里的那张图": ("read_memo_resource",),
    "给任务加上紧急标签": ("update_todo_task", "batch_update_todo_tasks"),
    "新建一个待办标签叫跑腿": ("create_todo_tag",),
    "任务标签有哪些": ("list_todo_tags",),
    "把订酒店这个子任务勾上": ("complete_todo_subtask",),
    "改一下收件箱条目的标题": ("update_todo_inbox_item",),
    "收件箱这条已经做完了": ("complete_todo_inbox_item",),
    "从回收站恢复一个任务": ("restore_todo_task", "restore_todo_item"),
    "给收件箱条目加个子项": ("create_todo_inbox_subtask",),
    "给任务传一个PDF附件": ("upload_todo_attachment",),
    "取消正在进行的上传": ("cancel_memo_upload_session",),
    "关键词搜索提到预算的笔记": ("search_memos", "search_everything"),
    "家里标签下逾期的任务": ("query_todos",),
    "删掉看板上的一列": ("delete_todo_column",),
    "把工作看板改个名字": ("update_todo_space",),
    "这条笔记谁在什么时候改过": ("list_changes",),
    "打开某条笔记看全文": ("get_memo",),
}

HELD_OUT_3: dict[str, tuple[str, ...]] = {**HELD_OUT_3_EN, **HELD_OUT_3_ZH}


# The fourth held-out list: 40 more intents, written and committed on 2026-12-05 right after the
# third list was measured, BEFORE the ranking change its misses prompted (the catalog's words
# for what people call labels, boards, pictures and checklist steps) and before any of them was
# ranked. The third list is read from that change on; this one is measured once, after it.
HELD_OUT_4_EN: dict[str, tuple[str, ...]] = {
    "note down my flight number": ("create_memo",),
    "show the memos I archived": ("list_memos",),
    "star this memo so it stays on top": ("update_memo",),
    "what's on my plate today": ("query_todos", "list_todos"),
    "add a task to buy milk to the Home board": ("create_todo_task",),
    "push this task's deadline to Friday": ("update_todo_task", "batch_update_todo_tasks"),
    "delete the subtask I no longer need": ("delete_todo_subtask",),
    "see the checklist inside an inbox item": ("list_todo_inbox_subtasks", "get_todo_inbox_item"),
    "send an inbox item to the board": ("move_todo_inbox_item_to_board",),
    "restore an inbox item I deleted": ("restore_todo_item",),
    "change the color of a task tag": ("update_todo_tag",),
    "remove the tag errands from my tag list": ("delete_todo_tag",),
    "what did the agent change in this session": ("list_changes",),
    "revert my last edit": ("undo_changes",),
    "search my highlights by meaning": ("search_reading_notes", "search_everything"),
    "what is today's date where I live": ("get_context",),
    "attach a receipt image to a task": ("upload_todo_attachment",),
    "get the size of a file on a task": ("get_todo_attachment_metadata",),
    "rename a tag across all memos": ("rename_memo_tag",),
    "give me a few old memos to reflect on": ("select_memos_for_insight",),
}

HELD_OUT_4_ZH: dict[str, tuple[str, ...]] = {
    "记一下航班号": ("create_memo",),
    "看看归档的笔记": ("list_memos",),
    "把这条笔记置顶": ("update_memo",),
    "今天有什么要做的": ("query_todos", "list_todos"),
    "在家庭看板里加一个买牛奶的任务": ("create_todo_task",),
    "把截止日期推到周五": ("update_todo_task", "batch_update_todo_tasks"),
    "删掉不需要的子任务": ("delete_todo_subtask",),
    "看一下收件箱条目里的清单": ("list_todo_inbox_subtasks", "get_todo_inbox_item"),
    "把收件箱的这条放到看板上": ("move_todo_inbox_item_to_board",),
    "恢复删掉的收件箱条目": ("restore_todo_item",),
    "改一下待办标签的颜色": ("update_todo_tag",),
    "删除跑腿这个待办标签": ("delete_todo_tag",),
    "这次会话里助手改了哪些东西": ("list_changes",),
    "撤销我刚才的修改": ("undo_changes",),
    "按意思搜书摘": ("search_reading_notes", "search_everything"),
    "我这里今天几号": ("get_context",),
    "给任务附上一张发票照片": ("upload_todo_attachment",),
    "任务附件有多大": ("get_todo_attachment_metadata",),
    "把所有笔记里的某个标签改名": ("rename_memo_tag",),
    "随机挑几条旧笔记回顾一下": ("select_memos_for_insight",),
}

HELD_OUT_4: dict[str, tuple[str, ...]] = {**HELD_OUT_4_EN, **HELD_OUT_4_ZH}


# The fifth held-out list: 40 more intents, written and committed on 2026-12-05 BEFORE each tool
# was given example phrasings (tool_phrasings.yaml) and before any of them was ranked. Measured
# once, after that change.
HELD_OUT_5_EN: dict[str, tuple[str, ...]] = {
    "log what I ate for lunch": ("create_memo",),
    "fix a typo in yesterday's memo": ("update_memo",),
    "how many memos have the tag travel": ("list_memos", "list_tags"),
    "archive old memos": ("update_memo",),
    "find the memo where I wrote about the dentist": ("search_memos", "search_ai_memos", "search_everything"),
    "put a reminder on the tax task for Monday morning": ("set_todo_reminders",),
    "which tasks have no due date": ("query_todos",),
    "move the card to Done": ("move_todo_task", "complete_todo_task"),
    "make the Reading column the second one": ("update_todo_column",),
    "create a board for the house renovation": ("create_todo_space",),
    "drop everything in the inbox into the board": ("move_todo_inbox_item_to_board",),
    "rename the inbox subtask": ("update_todo_inbox_subtask",),
    "uncheck a subtask": ("reopen_todo_subtask",),
    "show me the tasks I deleted": ("list_todo_trash",),
    "set my timezone to Europe/Berlin": ("set_time_zone",),
    "what can this connection do": ("get_context",),
    "list the files attached to a memo": ("list_memo_resources",),
    "finish uploading a large video to a memo": ("complete_memo_upload_session", "create_memo_upload_session"),
    "search all my books for the word stoic": ("search_reading_notes", "search_everything"),
    "undo the changes made by my phone shortcut": ("undo_changes",),
}

HELD_OUT_5_ZH: dict[str, tuple[str, ...]] = {
    "记下午饭吃了什么": ("create_memo",),
    "改掉昨天那条笔记里的错字": ("update_memo",),
    "旅行标签下有多少条笔记": ("list_memos", "list_tags"),
    "把旧笔记归档": ("update_memo",),
    "找那条写牙医的笔记": ("search_memos", "search_ai_memos", "search_everything"),
    "给报税任务设个周一早上的提醒": ("set_todo_reminders",),
    "哪些任务没有截止日期": ("query_todos",),
    "把卡片拖到已完成": ("move_todo_task", "complete_todo_task"),
    "把阅读这一列调到第二个": ("update_todo_column",),
    "为装修新建一个看板": ("create_todo_space",),
    "把收件箱的东西都放进看板": ("move_todo_inbox_item_to_board",),
    "给收件箱子任务改名": ("update_todo_inbox_subtask",),
    "取消勾选一个子任务": ("reopen_todo_subtask",),
    "看看删掉的任务": ("list_todo_trash",),
    "把时区设成柏林": ("set_time_zone",),
    "这个连接有哪些权限": ("get_context",),
    "列出笔记的所有附件": ("list_memo_resources",),
    "把大视频上传到笔记里": ("complete_memo_upload_session", "create_memo_upload_session"),
    "在所有书里搜斯多葛这个词": ("search_reading_notes", "search_everything"),
    "撤销快捷指令做的改动": ("undo_changes",),
}

HELD_OUT_5: dict[str, tuple[str, ...]] = {**HELD_OUT_5_EN, **HELD_OUT_5_ZH}


# The sixth held-out list: 40 more intents, written and committed on 2026-12-05 BEFORE each tool
# was given two more phrasings and before any of them was ranked. Measured once, after that change.
HELD_OUT_6_EN: dict[str, tuple[str, ...]] = {
    "jot this recipe into my notes": ("create_memo",),
    "show memos from last March": ("list_memos",),
    "unpin the memo about the lease": ("update_memo",),
    "what did I write about sleep": ("search_memos", "search_ai_memos", "search_everything"),
    "which tags do my notes have and how often": ("list_tags",),
    "the tasks in my Work project": ("list_todos", "query_todos"),
    "high priority tasks due soon": ("query_todos",),
    "bump the dentist task to urgent": ("update_todo_task", "batch_update_todo_tasks"),
    "make a copy of the weekly report task": ("duplicate_todo_task",),
    "take the flat-hunting task out of the trash": ("restore_todo_task", "restore_todo_item"),
    "put a subtask above the others": ("reorder_todo_subtasks",),
    "a new column called Blocked": ("create_todo_column",),
    "throw away the Archive column": ("delete_todo_column",),
    "my inbox has too much; list it": ("list_todo_inbox_items",),
    "file the inbox item under the Errands board": ("move_todo_inbox_item_to_board",),
    "what files are on the invoice task": ("get_todo_task", "get_todo_attachment_metadata", "read_todo_attachment"),
    "which highlights did I make in Sapiens": ("list_reading_notes", "search_reading_notes"),
    "everything an agent did today, undo it": ("undo_changes",),
    "what zone are my dates in": ("get_context",),
    "summarize my notes from this week, first fetch them": ("select_memos_for_insight", "list_memos"),
}

HELD_OUT_6_ZH: dict[str, tuple[str, ...]] = {
    "把这个菜谱记到笔记里": ("create_memo",),
    "看去年三月的笔记": ("list_memos",),
    "取消置顶租房那条笔记": ("update_memo",),
    "我写过哪些关于睡眠的": ("search_memos", "search_ai_memos", "search_everything"),
    "笔记的标签各用了多少次": ("list_tags",),
    "工作项目里的任务": ("list_todos", "query_todos"),
    "快到期的高优先级任务": ("query_todos",),
    "把看牙任务改成紧急": ("update_todo_task", "batch_update_todo_tasks"),
    "把周报任务复制一份": ("duplicate_todo_task",),
    "把找房子的任务从回收站拿回来": ("restore_todo_task", "restore_todo_item"),
    "把一个子任务挪到最上面": ("reorder_todo_subtasks",),
    "加一列叫受阻": ("create_todo_column",),
    "把归档这一列删了": ("delete_todo_column",),
    "收件箱太乱了，列出来看看": ("list_todo_inbox_items",),
    "把收件箱这条归到跑腿看板": ("move_todo_inbox_item_to_board",),
    "发票任务上挂了哪些文件": ("get_todo_task", "get_todo_attachment_metadata", "read_todo_attachment"),
    "我在人类简史里划了哪些线": ("list_reading_notes", "search_reading_notes"),
    "今天智能体做的都撤销掉": ("undo_changes",),
    "我的日期按哪个时区算": ("get_context",),
    "先把这周的笔记取出来做总结": ("select_memos_for_insight", "list_memos"),
}

HELD_OUT_6: dict[str, tuple[str, ...]] = {**HELD_OUT_6_EN, **HELD_OUT_6_ZH}


#: The seventh list: written by a helper that read only the tools' names and first description
#: lines (no ranking code, no phrasings, no earlier list), committed before it was ranked.

HELD_OUT_7_EN: dict[str, tuple[str, ...]] = {
    "I deleted the dentist appointment task by accident, bring it back": ("restore_todo_task", "restore_todo_item"),
    "check off the milk, eggs and bread errands all at once": ("batch_complete_todo_tasks",),
    "what passages did I mark in the Kafka book?": ("list_reading_notes", "search_reading_notes"),
    "nudge me half an hour before the quarterly report is due": ("set_todo_reminders",),
    "make the pay-rent task come back every month": ("update_todo_task", "batch_update_todo_tasks"),
    "my #work label should be called #job everywhere in my notes": ("rename_memo_tag",),
    "add a scanned receipt PDF to a note": ("upload_memo_resource", "create_memo_upload_session"),
    "what has the assistant changed in my stuff since this morning?": ("list_changes",),
    "roll back everything you just did": ("undo_changes",),
    "what day is it for me right now and what timezone am I on?": ("get_context",),
    "I moved to Berlin, switch my clock to local time there": ("set_time_zone",),
    "start a new kanban board for the house renovation": ("create_todo_space",),
    "add a 'Waiting on others' lane to my work board": ("create_todo_column",),
    "split the conference prep task into smaller steps": ("create_todo_subtask",),
    "keep my packing checklist note stuck at the top": ("update_memo",),
    "find notes where I vented about feeling burned out, whatever words I used": (
        "search_ai_memos",
        "search_everything",
    ),
    "quickly capture 'call the plumber' without deciding which board it goes on": ("create_todo_inbox_item",),
    "which books have I been reading on WeChat lately?": ("list_reading_books",),
    "show me everything sitting in the deleted to-dos bin": ("list_todo_trash",),
    "make a copy of the weekly review task for next week": ("duplicate_todo_task",),
}

HELD_OUT_7_ZH: dict[str, tuple[str, ...]] = {
    "把“买菜”挪到“进行中”那一列": ("move_todo_task",),
    "收件箱里那条“换护照”放到工作看板上去": ("move_todo_inbox_item_to_board",),
    "昨天手滑删掉的那条日记还能找回来吗": ("restore_memo",),
    "我哪条笔记里写过“降噪耳机”这几个字": ("search_memos", "search_ai_memos"),
    "这周五之前到期的任务有哪些": ("query_todos",),
    "“学习”这个待办标签不要了,全部去掉": ("delete_todo_tag",),
    "看看我读《人类简史》时自己写的感想": ("list_reading_notes", "search_reading_notes"),
    "报销那个子任务点错了,改回没做完": ("reopen_todo_subtask",),
    "装修任务下面的几个小步骤换下顺序,先买瓷砖再刷墙": ("reorder_todo_subtasks",),
    "“交房租”别再提醒我了,提醒全删掉": ("clear_todo_reminders",),
    "“已完成”那一列先隐藏起来": ("update_todo_column",),
    "以后新建任务默认放到“工作”看板": ("update_todo_space",),
    "“旧项目”看板已经空了,把它删掉": ("delete_todo_space",),
    "把会议记录那条笔记里的录音文件拿出来": ("read_memo_resource",),
    "体检任务上传的那个附件有多大、什么格式": ("get_todo_attachment_metadata",),
    "先看看撤销刚才那批改动会影响什么,别真撤": ("undo_changes",),
    "把最近三个月带#读书 标签的笔记挑出来,帮我总结一下": ("select_memos_for_insight", "list_memos"),
    "随手记个想法:明天试试番茄工作法 #效率": ("create_memo",),
    "收件箱里“整理衣柜”那条下面加个小步骤:先扔旧衣服": ("create_todo_inbox_subtask",),
    "这五个任务统一改到下周一截止": ("batch_update_todo_tasks",),
}

HELD_OUT_7: dict[str, tuple[str, ...]] = {**HELD_OUT_7_EN, **HELD_OUT_7_ZH}


#: The eighth list: written by a second helper under the same rule (the tools' names and first
#: description lines only), committed before it was ranked.

HELD_OUT_8_EN: dict[str, tuple[str, ...]] = {
    "jot this down: 'Call the landlord about the leaking sink #home'": ("create_memo",),
    "pin my grocery list note so it stays at the top": ("update_memo",),
    "which tags do I use the most in my notes?": ("list_tags",),
    "rename my #work tag to #job in all my notes": ("rename_memo_tag",),
    "I want to attach a 40 MB screen recording to a note, how do I start the upload?": ("create_memo_upload_session",),
    "how big is the PDF attached to my tax note?": ("get_memo_resource_metadata",),
    "mark the dentist task as done": ("complete_todo_task", "batch_complete_todo_tasks"),
    "add a step 'buy stamps' under the tax return task": ("create_todo_subtask",),
    "add a 'Blocked' column to my work board": ("create_todo_column",),
    "ping me 30 minutes before the flight task is due": ("set_todo_reminders",),
    "make 'water the plants' repeat every Sunday": ("update_todo_task", "batch_update_todo_tasks"),
    "I accidentally deleted the 'renew passport' task, can you bring it back?": (
        "restore_todo_task",
        "restore_todo_item",
    ),
    "push the due date of all five invoice tasks to next Friday": ("batch_update_todo_tasks", "update_todo_task"),
    "put the 'book hotel' item from my inbox onto the Travel board": ("move_todo_inbox_item_to_board",),
    "show me my Kafka highlights": ("search_reading_notes", "list_reading_notes"),
    "which books do I have synced from WeChat Reading?": ("list_reading_books",),
    "find anything I've got about burnout, whether it's notes, tasks or book quotes": ("search_everything",),
    "what got changed in my stuff yesterday afternoon?": ("list_changes",),
    "undo everything you just did": ("undo_changes",),
    "I moved to Berlin, switch my time zone": ("set_time_zone",),
}

HELD_OUT_8_ZH: dict[str, tuple[str, ...]] = {
    "把昨天那条读书会的笔记删了": ("delete_memo",),
    "我之前好像写过换工作很纠结的想法，帮我找找": ("search_ai_memos", "search_everything"),
    "这条笔记里都挂了哪些附件？": ("list_memo_resources",),
    "刚删掉的那条笔记恢复一下": ("restore_memo",),
    "把我三月份写的笔记都拿出来，帮我总结一下": ("select_memos_for_insight", "list_memos"),
    "新建一个“装修”看板，列是 待买、已下单、已到货": ("create_todo_space",),
    "把“写周报”挪到进行中那一列": ("move_todo_task",),
    "收件箱记一条：周末给妈妈打电话": ("create_todo_inbox_item",),
    "待办回收站里现在有啥": ("list_todo_trash",),
    "“临时”这个待办标签不要了，全部删掉": ("delete_todo_tag",),
    "把待办标签“学习”改名成“进修”": ("update_todo_tag",),
    "下周有哪些任务到期？": ("query_todos",),
    "体检那个任务的提醒都取消掉": ("clear_todo_reminders",),
    "把“准备面试”复制一份，标题改成“准备二面”": ("duplicate_todo_task",),
    "搬家任务下面的“打包书”其实还没弄完，改回未完成": ("reopen_todo_subtask",),
    "我的待办都有哪些空间，每个空间有哪些列？": ("list_todo_spaces",),
    "《人类简史》里我划的线和写的想法按顺序列出来": ("list_reading_notes",),
    "我这边现在几点？今天几号？": ("get_context",),
    "撤销刚才对旅行计划笔记的那次修改": ("undo_changes",),
    "给报销任务传一张发票照片": ("upload_todo_attachment",),
}

HELD_OUT_8: dict[str, tuple[str, ...]] = {**HELD_OUT_8_EN, **HELD_OUT_8_ZH}
