"""Builds citation_pairs_zh.json and heldout_pairs_en.json.

All sources and claims below are hand-written literals; the script only
attaches ids/labels and dumps JSON.  Label is fixed by kind (see KIND_LABEL).
"""
import json
import os
from collections import Counter

# ---------------------------------------------------------------- Chinese
ZH_SOURCES = {
 "z01": "南门大桥始建于1932年，是当时全省跨度最大的钢筋混凝土拱桥。1968年，为适应车流增长，大桥进行了第一次拓宽改造，桥面由9米增至14米。2005年，市政府将其列为市级文物保护单位。目前，大桥每日通行车辆约3.6万辆次。",
 "z02": "市卫生健康委员会通报，今年第一季度全市共报告流感样病例2871例，较去年同期下降12.4%。其中，5岁以下儿童病例占比约三成。疾控部门提醒，老年人和慢性病患者应尽早接种流感疫苗。截至3月底，全市累计接种流感疫苗18.6万剂次。",
 "z03": "在昨晚结束的中超第12轮比赛中，山东泰山队坐镇主场以2比1逆转击败上海申花队。申花队在第18分钟由马莱莱首开纪录，泰山队克雷桑在下半场梅开二度。这是泰山队本赛季第三次主场逆转取胜。赛后，泰山队以25分升至积分榜第二位。",
 "z04": "北京市海淀区人民法院近日审结一起网络著作权纠纷案。原告某影视公司诉称，被告某视频平台未经许可在线播放其享有独家信息网络传播权的电视剧共计42集。法院经审理认为，被告行为构成侵权，判决其赔偿原告经济损失及合理开支共计68万元。原告此前主张的赔偿金额为200万元。",
 "z05": "中国科学院南京地质古生物研究所的研究团队在云南澄江发现了一种距今约5.18亿年的节肢动物化石，并将其命名为“澄江奇翼虫”。该化石保存了完整的消化道和神经系统，这在寒武纪化石中极为罕见。相关成果已于本月发表在国际期刊《自然》上，论文第一作者为该所副研究员刘晓东。",
 "z06": "为做好春节期间交通保障工作，市公安局交通管理局决定，自2024年2月8日至2月17日，对城区主要商圈周边道路实行临时交通管制。管制期间，每日10时至22时禁止货车驶入解放路、中山路。市区新增临时停车泊位1200个，并开通4条假日公交专线。",
 "z07": "公司2023年度实现营业收入86.4亿元，同比增长17.2%；归属于上市公司股东的净利润为5.3亿元，同比下降8.6%。报告期内，公司海外业务收入占比提升至31%。公司董事会拟向全体股东每10股派发现金红利2元（含税）。",
 "z08": "青海湖位于青藏高原东北部，是我国最大的内陆咸水湖。湖面海拔约3196米，面积约4400平方千米。湖中的鸟岛是斑头雁、棕头鸥等候鸟的重要繁殖地。每年7月，环青海湖国际公路自行车赛在此举行。",
 "z09": "教育部最新统计显示，2023年全国共有普通高等学校2820所，其中本科院校1275所，高职（专科）院校1545所。各种形式的高等教育在学总规模达到4763万人，高等教育毛入学率为60.2%，比上年提高0.6个百分点。",
 "z10": "沪渝蓉高铁武汉至宜昌段于2023年12月开工建设，线路全长约315公里，设计时速350公里。项目建成后，武汉至宜昌的最快旅行时间将由目前的约2小时缩短至1小时左右。该段计划于2028年建成通车。",
 "z11": "据省农业农村厅消息，今年全省夏粮播种面积稳定在2150万亩，总产量达到168.2亿斤，比上年增加3.1亿斤，实现连续五年增产。其中，小麦单产每亩436公斤，创历史新高。受5月下旬持续降雨影响，部分地区小麦出现穗发芽现象。",
 "z12": "生态环境部发布的数据显示，2023年全国339个地级及以上城市平均空气质量优良天数比例为85.5%，扣除沙尘异常超标天后为86.8%。细颗粒物（PM2.5）平均浓度为30微克/立方米，同比上升3.4%。臭氧浓度与上年持平。",
 "z13": "三星堆遗址位于四川省广汉市。1929年，当地农民燕道诚在挖水沟时首次发现玉石器。1986年，考古工作者发掘出一号、二号祭祀坑，出土青铜神树、青铜大立人等珍贵文物。2019年至2022年，新发现的6个祭祀坑相继完成发掘。",
 "z14": "华为于2019年8月在东莞举行的开发者大会上正式发布鸿蒙操作系统。2021年6月，鸿蒙系统开始大规模升级到手机端。官方数据显示，截至2023年8月，搭载鸿蒙系统的华为设备数量已超过7亿台。",
 "z15": "受台风“海葵”影响，9月3日至5日，福建省东南沿海普降暴雨到大暴雨，局部特大暴雨。全省共有23个县（市、区）累计雨量超过250毫米，最大累计雨量出现在漳州市东山县，达到512毫米。全省紧急转移群众12.6万人，未造成人员伤亡。",
 "z16": "故宫博物院实行全网实名预约售票，每日最大参观人数限定为4万人。旺季门票价格为60元，淡季为40元。60岁以上老年人凭有效证件享受半价优惠。每周一闭馆（法定节假日除外）。",
 "z17": "国家统计局数据显示，5月份全国城镇调查失业率为5.0%，比上月下降0.2个百分点。其中，16—24岁劳动力失业率为14.2%，25—59岁劳动力失业率为4.0%。全国企业就业人员周平均工作时间为48.5小时。",
 "z18": "复旦大学附属中山医院心内科团队开展的一项多中心临床研究，纳入了来自全国36家医院的2400名急性心肌梗死患者。结果显示，与常规治疗组相比，新方案组患者术后一年内主要不良心血管事件发生率降低了27%。该研究的随访时间中位数为14个月，研究结果近日在《柳叶刀》子刊发表。",
 "z19": "市住房和城乡建设局公布，今年全市计划开工改造老旧小区312个，涉及居民4.6万户。改造内容包括加装电梯、更新管网和增设停车位等。截至6月底，已开工187个，开工率近六成。",
 "z20": "神舟十七号载人飞船于2023年10月26日在酒泉卫星发射中心发射升空。乘组由汤洪波、唐胜杰和江新林组成，其中汤洪波为指令长。这是汤洪波第二次执行飞行任务，唐胜杰和江新林则是首次进入太空。乘组计划在轨驻留约6个月。",
 "z21": "海关总署统计，今年前7个月，我国货物贸易进出口总值23.55万亿元，同比增长0.4%。其中，出口13.4万亿元，增长1.5%；进口10.15万亿元，下降0.9%。同期，我国对东盟进出口3.5万亿元，东盟继续保持我国第一大贸易伙伴地位。",
 "z22": "上海市第一中级人民法院二审维持原判，驳回某外卖平台公司的上诉。一审法院认定，骑手王某与该公司之间存在劳动关系，公司应支付王某工伤保险待遇及赔偿金共计21.7万元。王某于2022年4月在送餐途中发生交通事故，导致左腿骨折。",
 "z23": "经文化和旅游部数据中心测算，今年国庆节假期8天，全国国内旅游出游8.26亿人次，按可比口径同比增长71.3%，按可比口径较2019年增长4.1%。实现国内旅游收入7534.3亿元。",
 "z24": "四川省林业和草原局发布的第四次全国大熊猫调查结果显示，四川野生大熊猫数量为1387只，占全国野生大熊猫总数的74.4%。与第三次调查相比，四川野生大熊猫数量增加了181只，栖息地面积增加了3.3万公顷。",
 "z25": "杭州地铁19号线（机场快线）于2022年9月22日开通运营，线路全长59.1公里，共设站15座，最高运行时速120公里。从火车西站到萧山国际机场最快只需50分钟左右。",
 "z26": "国家能源局数据显示，截至2023年底，全国累计发电装机容量约29.2亿千瓦，同比增长13.9%。其中，太阳能发电装机容量约6.1亿千瓦，同比增长55.2%；风电装机容量约4.4亿千瓦，同比增长20.7%。",
 "z27": "市市场监督管理局近日通报了第二季度食品安全监督抽检情况。本次共抽检食品样品3260批次，检出不合格样品47批次，不合格率为1.44%。不合格项目主要涉及农药残留超标、微生物污染和食品添加剂超范围使用。相关不合格产品已全部下架，生产经营者已被立案调查。",
 "z28": "《红楼梦》原名《石头记》，前八十回一般认为由曹雪芹所著，后四十回的作者历来存在争议，通行本署名高鹗续。1791年，程伟元、高鹗首次以木活字排印刊行一百二十回本，世称“程甲本”。次年又出修订本，称“程乙本”。",
 "z29": "当地时间11月3日，新西兰选举委员会公布最终计票结果，国家党获得48个议席，成为议会第一大党。工党获得34席，绿党获得15席。国家党领袖克里斯托弗·卢克森表示，将与行动党和优先党展开组阁谈判。",
 "z30": "2024厦门马拉松赛1月7日鸣枪开跑，共有3万名跑者参赛。埃塞俄比亚选手德雷萨·格莱塔以2小时5分58秒夺得男子全程冠军，并打破赛会纪录。中国选手何杰以2小时7分30秒获得第六名。",
 "z31": "国家药品监督管理局近日通过优先审评审批程序，附条件批准某生物公司的1类创新药上市，用于治疗既往接受过至少二线系统治疗的晚期胆管癌患者。该药此前已获得美国食品药品监督管理局授予的孤儿药资格认定。",
 "z32": "因主干供水管道维修，自来水公司将于3月15日（周五）22时至次日6时暂停向高新区部分区域供水。受影响区域包括科技路以南、锦业路以北、丈八一路以西的小区和企业。请相关用户提前做好储水准备。如遇雨雪天气，施工时间将顺延至3月22日。",
 "z33": "中国汽车工业协会数据显示，2023年我国汽车产销量分别完成3016.1万辆和3009.4万辆，同比分别增长11.6%和12%。其中，新能源汽车产销量分别完成958.7万辆和949.5万辆，市场占有率达到31.6%。全年汽车出口491万辆，同比增长57.9%。",
 "z34": "根据区教育局通知，2024年秋季小学一年级新生网上报名时间为5月20日至5月31日。适龄儿童须在2024年8月31日前（含当日）年满6周岁。非本市户籍儿童还需提供父母在本区连续缴纳社会保险满12个月的证明。",
 "z35": "中国天眼FAST自2020年1月通过国家验收正式开放运行以来，已发现超过900颗新脉冲星。FAST位于贵州省黔南州平塘县，反射面直径500米，是目前世界上最大的单口径射电望远镜。其建设设想由天文学家南仁东于1994年提出。",
 "z36": "星河科技公告称，已与北辰软件的股东签署协议，以12.8亿元现金收购北辰软件75%的股权。交易完成后，北辰软件将成为星河科技的控股子公司，其创始人李明将继续担任总经理。该交易尚需提交星河科技股东大会审议批准。",
 "z37": "浙江省杭州市中级人民法院对被告人张某诈骗案作出一审判决，以诈骗罪判处张某有期徒刑十二年，并处罚金人民币五十万元。经审理查明，2019年至2021年间，张某以投资养老项目为名，骗取62名老年人钱款共计1800余万元。",
 "z38": "国家卫生健康委员会发布的调查结果显示，2022年我国15岁及以上人群吸烟率为24.1%，较2018年的26.6%有所下降。其中，男性吸烟率为47.6%，女性为1.8%。二手烟暴露情况仍较为普遍，超过半数的非吸烟者遭受二手烟暴露。",
 "z39": "郑和第一次下西洋始于明永乐三年（1405年），船队从苏州刘家港出发，最远到达印度西南海岸的古里。此后至宣德八年（1433年），郑和先后七次率船队远航，到访亚非三十多个国家和地区。第七次下西洋归途中，郑和在古里病逝。",
 "z40": "据市人社局介绍，今年上半年全市城镇新增就业8.7万人，完成全年目标任务的62%。同期，全市共组织线上线下招聘活动430场，提供岗位21万个。高校毕业生留本市就业人数同比增长9%。",
 "z41": "中国气象局发布的《中国气候变化蓝皮书（2023）》指出，1961年至2022年，中国年平均降水量呈增加趋势，平均每10年增加5.5毫米。1901年至2022年，中国地表年平均气温呈显著上升趋势，近20年是20世纪初以来的最暖时期。",
 "z42": "省消费者权益保护委员会发布报告称，2023年全省各级消保委共受理消费者投诉6.8万件，为消费者挽回经济损失4120万元。从投诉类别看，预付式消费投诉数量居首位，占比18.3%；其次为网络购物，占比15.7%。",
 "z43": "农业农村部公告，今年南海伏季休渔自5月1日12时起至8月16日12时止，休渔期间除钓具外的所有作业类型均须停止作业。东海和黄海的休渔期同样从5月1日12时开始，最早于8月1日结束。违反休渔规定的，将依法没收渔获物和渔具，并处以罚款。",
 "z44": "国家自然科学基金委员会公布，2023年度共资助各类项目5.15万项，直接费用总额约326亿元。其中，面上项目2.08万项，青年科学基金项目2.28万项。青年科学基金项目负责人的平均年龄为31.5岁。",
 "z45": "据日本气象厅消息，当地时间1月1日16时10分，日本石川县能登地区发生7.6级地震，震源深度16公里。气象厅一度对石川县沿海发布“大海啸警报”，这是2011年东日本大地震以来首次发布该级别警报。截至1月3日，地震已造成至少64人死亡。",
 "z46": "市图书馆新馆于今年4月23日世界读书日正式开馆，建筑面积5.2万平方米，设计藏书量400万册，阅览座位3000个。开馆首月共接待读者31万人次，办理新读者证1.4万张。新馆还设有24小时自助借还区。",
 "z47": "受持续高温少雨影响，截至8月20日，全省农作物受旱面积达到1080万亩，其中重旱260万亩，干枯38万亩。全省有12.4万人、9.7万头大牲畜因旱出现饮水困难。省防汛抗旱指挥部已于8月12日将抗旱应急响应提升至Ⅲ级。",
 "z48": "工业和信息化部数据显示，截至2023年底，我国5G基站总数达337.7万个，占移动基站总数的29.1%。全年新建5G基站超过106万个。5G移动电话用户达8.05亿户，占移动电话用户总数的46.6%。",
 "z49": "在釜山举行的世界乒乓球团体锦标赛男团决赛中，中国队以3比0战胜法国队，实现世乒赛男团十一连冠。樊振东、马龙和王楚钦分别拿下三场单打。此前的半决赛中，中国队同样以3比0淘汰了韩国队。",
 "z50": "第45届世界遗产大会于2023年9月在沙特阿拉伯利雅得召开。会议通过决议，将中国云南“普洱景迈山古茶林文化景观”列入《世界遗产名录》。这是中国第57处世界遗产，也是全球首个茶主题世界文化遗产。",
 "z51": "中国人民银行授权全国银行间同业拆借中心公布，8月21日贷款市场报价利率（LPR）为：1年期LPR为3.45%，5年期以上LPR为4.2%。1年期LPR较上月下调10个基点，5年期以上LPR保持不变。",
 "z52": "国产大飞机C919于2023年5月28日完成首次商业飞行，执飞东方航空MU9191航班，由上海虹桥机场飞往北京首都机场。东方航空是C919的全球首家用户，首批订购5架。截至2024年初，东航已接收4架C919。",
 "z53": "区民政局介绍，今年以来全区新建社区养老服务站18个，改造提升老年助餐点42个，目前老年助餐服务已覆盖全区全部76个社区。下一步，该区计划在年底前为3000户特殊困难老年人家庭实施适老化改造。",
 "z54": "电影《满江红》以45.44亿元的票房成绩位列2023年中国内地电影票房榜首位，《流浪地球2》以40.29亿元排名第二，《孤注一掷》以38.48亿元位居第三。2023年全国电影总票房为549.15亿元，其中国产影片票房占比83.44%。",
 "z55": "人力资源社会保障部、财政部联合发布通知，从2024年1月1日起，为2023年底前已按规定办理退休手续并按月领取基本养老金的企业和机关事业单位退休人员提高基本养老金水平，总体调整水平为2023年退休人员月人均基本养老金的3%。此次调整继续采取定额调整、挂钩调整与适当倾斜相结合的办法。",
 "z56": "教育部发布的全国学生体质与健康调研结果显示，2019年全国学生体质健康达标优良率为23.8%，比2014年提高2.3个百分点。但大学生身体素质继续呈下降趋势，中小学生近视率仍然偏高，总体近视率为53.6%。",
 "z57": "《上海市生活垃圾管理条例》于2019年1月31日经上海市第十五届人民代表大会第二次会议通过，自2019年7月1日起施行。条例规定，个人未按规定分类投放生活垃圾的，由城管执法部门责令立即改正；拒不改正的，处50元以上200元以下罚款。单位违规混装混运的，最高可处5万元罚款。",
 "z58": "在CBA总决赛第五场比赛中，辽宁本钢队客场以100比92战胜浙江稠州金租队，总比分4比1夺得队史第四座总冠军奖杯。辽宁队外援弗格以28分成为全场得分王，赵继伟贡献15分10次助攻。赛后，付豪荣膺总决赛最有价值球员。",
 "z59": "公安部通报，2023年全国公安机关共破获电信网络诈骗案件43.7万起，抓获犯罪嫌疑人7.9万名。此外，会同有关部门拦截诈骗电话27.5亿次、诈骗短信22.8亿条，紧急止付涉案资金3288亿元。",
 "z60": "根据《城市绿化发展规划》，到2025年，全市建成区绿化覆盖率将达到43%，人均公园绿地面积达到15平方米。目前，全市建成区绿化覆盖率为41.2%，共有各类公园326个。规划期内将新建口袋公园100个。",
 "z61": "4月中旬，一头野生亚洲象在云南西双版纳勐腊县一处村庄附近被发现后肢受伤。当地森林消防和野生动物救护人员用时6小时将其麻醉，并转运至亚洲象种源繁育及救助中心。兽医检查发现，这头约15岁的雄象右后腿有一处长约20厘米的伤口。",
 "z62": "2024年全国高考报名人数为1342万人，比上年增加51万人，再创历史新高。考试于6月7日开始，各地结束时间因科目设置不同而有所差异。今年共有北京、天津等14个省份实行“3+1+2”新高考模式。",
 "z63": "深圳某电池企业近日向法院提起诉讼，指控江苏一家同行企业侵犯其5项发明专利，索赔金额1.2亿元。被告方回应称，相关技术系自主研发，并已向国家知识产权局请求宣告涉案专利无效。",
 "z64": "校友陈建国向母校浙江工业大学捐赠5000万元，用于设立人工智能学院奖学金和建设实验大楼。陈建国1988年毕业于该校化工系，现任某新材料集团董事长。这是该校建校以来收到的最大一笔个人捐赠。",
 "z65": "商务部于1月5日宣布，对原产于欧盟的进口相关白兰地发起反倾销调查。此前，欧盟委员会于2023年10月对中国产纯电动汽车发起反补贴调查。",
 "z66": "电池制造商远景动力宣布，将为宝马集团位于美国南卡罗来纳州的工厂供应新一代圆柱电池，配套产能为每年30吉瓦时。为此，远景动力将在当地新建一座电池工厂，预计2026年投产。",
 "z67": "在中南大学湘雅二医院，一位52岁的母亲将自己的一个肾脏移植给了患尿毒症多年的24岁儿子。手术历时4个小时，术后母子二人恢复良好。医院介绍，这是该院今年完成的第31例亲属活体肾移植手术。",
 "z68": "在足协杯四分之一决赛中，长春亚泰队经过点球大战以5比4淘汰北京国安队，两队常规时间和加时赛战成1比1。国安队第三个出场的球员罚球被扑出，成为比赛的转折点。",
 "z69": "患者家属刘某将市第一人民医院诉至法院，称医院在手术中存在过错，导致其父亲术后瘫痪。经司法鉴定，医院的诊疗行为存在过错，与损害后果之间存在次要因果关系。法院据此判决医院承担30%的赔偿责任，赔偿各项损失共计46.8万元。",
 "z70": "某长租公寓运营商因资金链断裂，拖欠房东租金达3个月，多名房东随即上门收房，导致租户被迫搬离。租户表示，他们此前已向运营商一次性交付了一年租金，目前正通过集体诉讼要求运营商退还剩余租金。",
}

ZH_PAIRS = [
 # z01 bridge
 ("z01", "verbatim", "南门大桥始建于1932年，是当时全省跨度最大的钢筋混凝土拱桥。"),
 ("z01", "neighbour_swap", "南门大桥始建于1968年。"),
 ("z01", "number_format", "目前，南门大桥日均通行车辆约三万六千辆次。"),
 # z02 flu
 ("z02", "bound_true", "今年一季度该市报告的流感样病例不到3000例。"),
 ("z02", "antonym", "今年一季度该市流感样病例较去年同期上升了12.4%。"),
 ("z02", "bound_false", "该市一季度流感样病例中，5岁以下儿童占比不到两成。"),
 # z03 football
 ("z03", "sentence_initial", "凭借这场胜利，泰山队以25分升至积分榜第二位。"),
 ("z03", "ordinal", "这是泰山队本赛季第二次在主场逆转取胜。"),
 ("z03", "entity_swap", "泰山队的两个进球均由马莱莱打进。"),
 ("z03", "not_stated", "泰山队主教练赛后表示，球队下半场的调整是逆转的关键。"),
 # z04 copyright case
 ("z04", "role_swap", "某视频平台起诉某影视公司侵犯其信息网络传播权。"),
 ("z04", "negation", "海淀法院认定，被告视频平台的行为不构成侵权。"),
 ("z04", "neighbour_swap", "法院判决被告视频平台赔偿原告200万元。"),
 ("z04", "bound_true", "法院判决视频平台赔偿的金额，不到原告主张金额的一半。"),
 ("z04", "paraphrase", "海淀法院认定，该视频平台擅自在线播放影视公司享有独家网络传播权的42集电视剧，属于侵权行为。"),
 # z05 fossil
 ("z05", "number_changed", "该节肢动物化石距今约5.8亿年。"),
 ("z05", "not_stated", "这是我国首次在云南发现寒武纪节肢动物化石。"),
 ("z05", "verbatim", "该化石保存了完整的消化道和神经系统，这在寒武纪化石中极为罕见。"),
 # z06 traffic control
 ("z06", "date_changed", "春节期间的临时交通管制自2024年2月6日起实施。"),
 ("z06", "number_format", "春节期间，市区新增临时停车泊位一千二百个。"),
 ("z06", "negation", "管制期间，解放路、中山路每日10时至22时并未对货车实行禁行。"),
 ("z06", "word_form", "市公安局交管局决定在春节期间对城区主要商圈周边道路实施临时交通管制。"),
 # z07 annual report
 ("z07", "antonym", "该公司2023年营业收入同比下降17.2%。"),
 ("z07", "neighbour_swap", "公司2023年归属于上市公司股东的净利润为86.4亿元。"),
 # z08 Qinghai Lake
 ("z08", "verbatim", "青海湖位于青藏高原东北部，是我国最大的内陆咸水湖。"),
 ("z08", "entity_swap", "青海湖鸟岛是丹顶鹤的重要繁殖地。"),
 ("z08", "date_changed", "环青海湖国际公路自行车赛每年8月在青海湖举行。"),
 ("z08", "word_form", "青海湖是中国面积最大的内陆咸水湖，湖面海拔约3196米。"),
 # z09 higher education
 ("z09", "bound_true", "2023年我国高等教育毛入学率已超过六成。"),
 ("z09", "number_format", "2023年，全国各种形式的高等教育在学总规模达到四千七百六十三万人。"),
 ("z09", "bound_false", "2023年全国本科院校数量不到1200所。"),
 ("z09", "not_stated", "2023年全国普通高校毕业生人数首次突破1100万。"),
 # z10 high-speed rail
 ("z10", "neighbour_swap", "沪渝蓉高铁武汉至宜昌段计划于2023年建成通车。"),
 ("z10", "paraphrase", "建成后，武汉到宜昌的最短乘车时间将从两小时左右压缩到一小时上下。"),
 # z11 summer grain
 ("z11", "antonym", "今年全省夏粮总产量比上年减少3.1亿斤。"),
 ("z11", "negation", "今年全省小麦单产未能创下历史新高。"),
 ("z11", "sentence_initial", "另据了解，受5月下旬持续降雨影响，该省部分地区小麦出现了穗发芽现象。"),
 # z12 air quality
 ("z12", "antonym", "2023年全国地级及以上城市PM2.5平均浓度同比下降3.4%。"),
 ("z12", "word_form", "全国339个地级以上城市2023年的臭氧浓度同上一年度持平。"),
 ("z12", "not_stated", "2023年全国地级及以上城市重度污染天数比例同比有所上升。"),
 # z13 Sanxingdui
 ("z13", "number_format", "二〇一九年至二〇二二年间，三星堆新发现的六个祭祀坑相继完成发掘。"),
 ("z13", "paraphrase", "三星堆一号、二号祭祀坑于1986年被发掘，青铜神树、青铜大立人等珍贵文物由此出土。"),
 # z14 HarmonyOS
 ("z14", "date_changed", "华为于2018年8月正式发布鸿蒙操作系统。"),
 ("z14", "bound_true", "截至2023年8月，搭载鸿蒙系统的华为设备已超过5亿台。"),
 ("z14", "entity_swap", "华为在深圳举行的开发者大会上正式发布了鸿蒙操作系统。"),
 ("z14", "sentence_initial", "此后，鸿蒙系统于2021年6月开始大规模升级到手机端。"),
 # z15 typhoon
 ("z15", "negation", "台风“海葵”在福建造成了人员伤亡。"),
 ("z15", "entity_swap", "此次强降雨过程中，福建最大累计雨量出现在厦门市。"),
 ("z15", "number_format", "受台风“海葵”影响，福建全省紧急转移群众十二万六千人。"),
 ("z15", "paraphrase", "台风“海葵”期间，福建共紧急转移12.6万名群众，没有出现人员伤亡。"),
 # z16 Palace Museum
 ("z16", "verbatim", "故宫博物院实行全网实名预约售票，每日最大参观人数限定为4万人。"),
 ("z16", "neighbour_swap", "故宫博物院旺季门票价格为40元。"),
 ("z16", "negation", "故宫博物院每周一不闭馆。"),
 ("z16", "paraphrase", "持有效证件的60岁以上老人参观故宫可享半价门票。"),
 # z17 unemployment
 ("z17", "antonym", "5月份全国城镇调查失业率比上月上升0.2个百分点。"),
 ("z17", "number_format", "5月份全国城镇调查失业率为百分之五。"),
 ("z17", "bound_true", "5月份全国企业就业人员周平均工作时间将近49小时。"),
 # z18 clinical study
 ("z18", "number_changed", "该研究纳入了来自全国36家医院的4200名急性心肌梗死患者。"),
 ("z18", "neighbour_swap", "该研究纳入了来自全国14家医院的急性心肌梗死患者。"),
 # z19 old communities
 ("z19", "bound_true", "截至6月底，该市已开工改造的老旧小区超过180个。"),
 ("z19", "bound_false", "截至6月底，该市老旧小区改造开工率已超过七成。"),
 ("z19", "not_stated", "该市计划今年为改造小区加装电梯500部。"),
 # z20 Shenzhou-17
 ("z20", "ordinal", "这是汤洪波第三次执行飞行任务。"),
 ("z20", "entity_swap", "神舟十七号乘组的指令长由唐胜杰担任。"),
 ("z20", "date_changed", "神舟十七号载人飞船于2023年11月26日发射升空。"),
 ("z20", "sentence_initial", "据介绍，唐胜杰和江新林此次是首次进入太空。"),
 # z21 foreign trade
 ("z21", "word_form", "今年前7个月，中国对东盟进出口3.5万亿元，东盟仍是中国第一大贸易伙伴。"),
 ("z21", "antonym", "今年前7个月，我国进口同比增长0.9%。"),
 ("z21", "ordinal", "今年前7个月，东盟为我国第二大贸易伙伴。"),
 ("z21", "not_stated", "今年前7个月，我国对欧盟进出口同比下降。"),
 # z22 delivery rider
 ("z22", "role_swap", "骑手王某不服一审判决提起上诉，被二审法院驳回。"),
 ("z22", "negation", "一审法院认定骑手王某与外卖平台公司之间不存在劳动关系。"),
 ("z22", "date_changed", "王某于2021年4月在送餐途中发生交通事故。"),
 # z23 National Day holiday
 ("z23", "number_format", "今年国庆节假期共八天，全国国内旅游出游8.26亿人次。"),
 ("z23", "neighbour_swap", "今年国庆假期国内旅游出游人次按可比口径较2019年增长71.3%。"),
 ("z23", "bound_false", "今年国庆假期全国国内旅游出游人次不足8亿。"),
 # z24 pandas
 ("z24", "ordinal", "第三次全国大熊猫调查结果显示，四川野生大熊猫数量为1387只。"),
 ("z24", "bound_true", "四川野生大熊猫数量约占全国野生大熊猫总数的四分之三。"),
 ("z24", "number_changed", "与第三次调查相比，四川野生大熊猫数量增加了281只。"),
 ("z24", "word_form", "与第三次调查相比，四川野生大熊猫的栖息地面积扩大了3.3万公顷。"),
 # z25 metro line 19
 ("z25", "number_changed", "杭州地铁19号线共设站18座。"),
 ("z25", "verbatim", "杭州地铁19号线（机场快线）于2022年9月22日开通运营。"),
 ("z25", "bound_false", "杭州地铁19号线最高运行时速超过150公里。"),
 # z26 power capacity
 ("z26", "word_form", "截至2023年年底，我国风电装机规模约4.4亿千瓦，比上年增长20.7%。"),
 ("z26", "entity_swap", "据国家统计局数据，截至2023年底全国累计发电装机容量约29.2亿千瓦。"),
 # z27 food safety
 ("z27", "negation", "相关不合格产品尚未全部下架。"),
 ("z27", "number_format", "此次该市共抽检食品样品三千二百六十批次。"),
 ("z27", "verbatim", "相关不合格产品已全部下架，生产经营者已被立案调查。"),
 # z28 Dream of the Red Chamber
 ("z28", "neighbour_swap", "“程乙本”于1791年刊行。"),
 ("z28", "sentence_initial", "次年，程伟元、高鹗又推出修订本，即“程乙本”。"),
 ("z28", "bound_true", "早在1800年以前，程伟元、高鹗就以木活字排印刊行了一百二十回本《红楼梦》。"),
 # z29 NZ election
 ("z29", "entity_swap", "工党成为新西兰议会第一大党。"),
 ("z29", "number_changed", "国家党在最终计票中获得38个议席。"),
 ("z29", "sentence_initial", "根据最终计票结果，绿党在新西兰议会获得15个议席。"),
 # z30 Xiamen marathon
 ("z30", "ordinal", "中国选手何杰在2024厦门马拉松赛中获得第五名。"),
 ("z30", "word_form", "埃塞俄比亚人德雷萨·格莱塔以2小时5分58秒的成绩赢得厦马男子全程冠军。"),
 ("z30", "negation", "德雷萨·格莱塔虽然夺冠，但未能打破赛会纪录。"),
 # z31 drug approval
 ("z31", "antonym", "国家药监局否决了该1类创新药的上市申请。"),
 ("z31", "entity_swap", "该药此前已获得欧洲药品管理局授予的孤儿药资格认定。"),
 ("z31", "paraphrase", "该创新药经优先审评审批，获国家药监局附条件批准上市，适用于至少接受过二线系统治疗的晚期胆管癌患者。"),
 ("z31", "not_stated", "该药是我国首个获批用于晚期胆管癌的靶向药物。"),
 ("z31", "verbatim", "该药此前已获得美国食品药品监督管理局授予的孤儿药资格认定。"),
 # z32 water outage
 ("z32", "date_changed", "自来水公司将于3月16日22时起暂停向高新区部分区域供水。"),
 ("z32", "neighbour_swap", "此次停水维修定于3月22日进行。"),
 ("z32", "number_format", "高新区部分区域的停水时间为3月15日晚十点至次日早六点。"),
 # z33 car industry
 ("z33", "bound_true", "2023年我国汽车产量和销量均突破3000万辆。"),
 ("z33", "bound_false", "2023年我国新能源汽车市场占有率不到三成。"),
 # z34 school enrolment
 ("z34", "date_changed", "2024年秋季小学一年级新生网上报名截止日期为6月30日。"),
 ("z34", "number_changed", "非本市户籍儿童需提供父母在本区连续缴纳社会保险满6个月的证明。"),
 ("z34", "negation", "非本市户籍儿童报名时无需提供父母的社保缴纳证明。"),
 ("z34", "sentence_initial", "此外，非本市户籍儿童还需提供父母在本区连续缴纳社保满12个月的证明。"),
 # z35 FAST
 ("z35", "neighbour_swap", "FAST于1994年通过国家验收并正式开放运行。"),
 ("z35", "bound_false", "FAST正式运行以来发现的新脉冲星不到800颗。"),
 ("z35", "word_form", "位于贵州平塘的FAST是当今全球最大的单口径射电望远镜。"),
 ("z35", "verbatim", "FAST位于贵州省黔南州平塘县，反射面直径500米。"),
 ("z35", "not_stated", "FAST每年约有一成观测时间向国外科学家开放。"),
 # z36 acquisition
 ("z36", "role_swap", "北辰软件宣布以12.8亿元现金收购星河科技75%的股权。"),
 ("z36", "role_swap", "交易完成后，星河科技将成为北辰软件的控股子公司。"),
 ("z36", "negation", "该收购交易无需经星河科技股东大会审议。"),
 ("z36", "number_format", "星河科技拟以12.8亿元现金收购北辰软件四分之三的股权。"),
 # z37 fraud case
 ("z37", "number_format", "张某因诈骗罪被判处有期徒刑12年，并处罚金50万元。"),
 ("z37", "number_changed", "张某以投资养老项目为名，骗取了26名老年人的钱款。"),
 # z38 smoking
 ("z38", "bound_true", "2022年我国男性吸烟率接近一半。"),
 ("z38", "paraphrase", "与2018年相比，2022年我国15岁及以上人群吸烟率从26.6%降至24.1%。"),
 # z39 Zheng He
 ("z39", "ordinal", "郑和在第六次下西洋归途中病逝。"),
 ("z39", "entity_swap", "郑和第一次下西洋的船队从泉州港出发。"),
 ("z39", "date_changed", "郑和第一次下西洋始于1415年。"),
 ("z39", "paraphrase", "从1405年到1433年，郑和七次率领船队出海远航。"),
 # z40 employment
 ("z40", "number_changed", "今年上半年该市共组织线上线下招聘活动340场。"),
 ("z40", "sentence_initial", "与此同时，该市高校毕业生留本市就业人数同比增长了9%。"),
 # z41 climate
 ("z41", "antonym", "1961年至2022年，中国年平均降水量呈减少趋势。"),
 ("z41", "word_form", "蓝皮书显示，1901年至2022年间我国地表年平均气温显著升高。"),
 ("z41", "not_stated", "蓝皮书预计，到2050年中国地表年平均气温还将升高1.5摄氏度。"),
 ("z41", "verbatim", "1961年至2022年，中国年平均降水量呈增加趋势，平均每10年增加5.5毫米。"),
 # z42 consumer complaints
 ("z42", "ordinal", "2023年，网络购物类投诉数量在全省各类消费投诉中排名第一。"),
 ("z42", "number_changed", "2023年全省各级消保委共受理消费者投诉8.6万件。"),
 ("z42", "bound_false", "2023年全省消保委为消费者挽回的经济损失不足4000万元。"),
 # z43 fishing moratorium
 ("z43", "neighbour_swap", "今年南海伏季休渔将于8月1日12时结束。"),
 ("z43", "date_changed", "今年南海伏季休渔自6月1日12时起开始。"),
 ("z43", "negation", "违反休渔规定的渔民不会被没收渔获物和渔具。"),
 ("z43", "paraphrase", "南海伏季休渔期间，除钓具作业外，其他各类作业一律停止。"),
 ("z43", "verbatim", "违反休渔规定的，将依法没收渔获物和渔具，并处以罚款。"),
 # z44 NSFC
 ("z44", "neighbour_swap", "2023年度国家自然科学基金共资助青年科学基金项目2.08万项。"),
 # z45 Noto earthquake
 ("z45", "word_form", "日方气象部门称，石川县能登地区1月1日发生7.6级地震。"),
 ("z45", "ordinal", "这是东日本大地震以来日本气象厅第二次发布“大海啸警报”。"),
 ("z45", "bound_true", "截至1月3日，能登地区地震已造成超过60人死亡。"),
 ("z45", "entity_swap", "这次7.6级地震发生在日本新潟县。"),
 # z46 library
 ("z46", "date_changed", "市图书馆新馆于今年5月23日正式开馆。"),
 ("z46", "sentence_initial", "开馆首月，市图书馆新馆共接待读者31万人次。"),
 # z47 drought
 ("z47", "neighbour_swap", "全省有9.7万人因旱出现饮水困难。"),
 ("z47", "number_changed", "省防汛抗旱指挥部已将抗旱应急响应提升至Ⅱ级。"),
 ("z47", "paraphrase", "持续高温少雨导致该省截至8月20日已有1080万亩农作物受旱。"),
 # z48 5G
 ("z48", "bound_false", "截至2023年底，5G移动电话用户已占我国移动电话用户总数的一半以上。"),
 # z49 table tennis
 ("z49", "antonym", "在釜山世乒赛男团决赛中，中国队负于法国队。"),
 ("z49", "entity_swap", "中国队在釜山世乒赛男团决赛中以3比0战胜韩国队。"),
 ("z49", "not_stated", "樊振东在男团决赛中以3比1战胜对手。"),
 # z50 world heritage
 ("z50", "ordinal", "普洱景迈山古茶林文化景观是中国第56处世界遗产。"),
 ("z50", "entity_swap", "第45届世界遗产大会在卡塔尔多哈召开。"),
 ("z50", "verbatim", "普洱景迈山古茶林文化景观是中国第57处世界遗产，也是全球首个茶主题世界文化遗产。"),
 ("z50", "word_form", "我国云南的普洱景迈山古茶林文化景观被列入《世界遗产名录》。"),
 # z51 LPR
 ("z51", "antonym", "8月1年期LPR较上月上调10个基点。"),
 ("z51", "number_format", "8月，1年期LPR较上月下调0.1个百分点。"),
 # z52 C919
 ("z52", "ordinal", "东方航空是C919的全球第二家用户。"),
 ("z52", "bound_true", "截至2024年初，东航接收的C919不到5架。"),
 ("z52", "date_changed", "C919于2023年6月28日完成首次商业飞行。"),
 ("z52", "sentence_initial", "值得一提的是，东方航空是C919的全球首家用户，首批订购了5架。"),
 ("z52", "role_swap", "C919首个商业航班由北京首都机场飞往上海虹桥机场。"),
 # z53 elderly care
 ("z53", "negation", "该区老年助餐服务尚未覆盖全部社区。"),
 ("z53", "not_stated", "该区已为3000户特殊困难老年人家庭完成适老化改造。"),
 ("z53", "sentence_initial", "据区民政局介绍，今年以来该区改造提升了42个老年助餐点。"),
 # z54 box office
 ("z54", "ordinal", "《流浪地球2》位列2023年中国内地电影票房第三名。"),
 # z55 pensions
 ("z55", "number_changed", "2024年退休人员基本养老金总体调整水平为2023年月人均基本养老金的3.8%。"),
 ("z55", "date_changed", "此次基本养老金上调自2024年7月1日起执行。"),
 ("z55", "paraphrase", "自2024年1月1日起，企业和机关事业单位退休人员基本养老金总体上调3%。"),
 # z56 student fitness
 ("z56", "antonym", "调研显示，大学生身体素质呈上升趋势。"),
 ("z56", "bound_false", "2019年全国学生体质健康达标优良率已超过三成。"),
 ("z56", "date_changed", "2019年全国学生体质健康达标优良率比2015年提高2.3个百分点。"),
 # z57 waste regulation
 ("z57", "neighbour_swap", "《上海市生活垃圾管理条例》于2019年7月1日经市人大表决通过。"),
 ("z57", "bound_true", "按照该条例，个人拒不改正违规投放行为的，罚款最高不超过200元。"),
 ("z57", "number_changed", "按照该条例，单位违规混装混运的，最高可处10万元罚款。"),
 ("z57", "verbatim", "《上海市生活垃圾管理条例》自2019年7月1日起施行。"),
 # z58 CBA
 ("z58", "ordinal", "辽宁本钢队夺得了队史第三座CBA总冠军奖杯。"),
 ("z58", "entity_swap", "赵继伟荣膺CBA总决赛最有价值球员。"),
 ("z58", "word_form", "辽宁队的外援弗格在总决赛第五场拿下全场最高的28分。"),
 # z59 telecom fraud
 ("z59", "number_format", "2023年全国公安机关抓获电信网络诈骗犯罪嫌疑人七万九千名。"),
 # z60 greening
 ("z60", "not_stated", "该市计划到2025年将各类公园总数增加到500个。"),
 ("z60", "neighbour_swap", "目前该市人均公园绿地面积为15平方米。"),
 ("z60", "bound_false", "目前该市建成区绿化覆盖率已超过45%。"),
 ("z60", "paraphrase", "该市提出，到2025年要把建成区绿化覆盖率提高到43%。"),
 # z61 elephant
 ("z61", "antonym", "这头受伤的野生亚洲象是一头雌象。"),
 ("z61", "word_form", "兽医查看后发现，这头约十五岁的公象右后腿上有一道约20厘米长的伤口。"),
 # z62 gaokao
 ("z62", "verbatim", "2024年全国高考报名人数为1342万人，比上年增加51万人，再创历史新高。"),
 ("z62", "antonym", "2024年全国高考报名人数比上年减少51万人。"),
 ("z62", "bound_false", "2024年全国高考报名人数比上年增加不到50万人。"),
 ("z62", "not_stated", "2024年高考报名人数中，复读生占比约为一成。"),
 # z63 patent suit
 ("z63", "role_swap", "江苏一家电池企业起诉深圳同行侵犯其5项发明专利。"),
 ("z63", "number_format", "深圳某电池企业以五项发明专利被侵权为由提起诉讼，索赔一亿二千万元。"),
 # z64 donation
 ("z64", "date_changed", "陈建国1998年毕业于浙江工业大学化工系。"),
 # z65 trade investigations
 ("z65", "role_swap", "欧盟委员会对原产于中国的白兰地发起反倾销调查。"),
 ("z65", "role_swap", "商务部对欧盟产纯电动汽车发起反补贴调查。"),
 ("z65", "word_form", "中方于1月5日宣布对欧盟进口白兰地启动反倾销调查。"),
 # z66 battery supply
 ("z66", "role_swap", "宝马集团将为远景动力供应新一代圆柱电池。"),
 ("z66", "entity_swap", "远景动力将为宝马集团位于美国佐治亚州的工厂供应圆柱电池。"),
 ("z66", "bound_true", "远景动力在当地新建的电池工厂预计在2030年以前投产。"),
 # z67 kidney transplant
 ("z67", "role_swap", "一名24岁男子将自己的一个肾脏捐给了52岁的母亲。"),
 ("z67", "ordinal", "这是湘雅二医院今年完成的第30例亲属活体肾移植手术。"),
 ("z67", "sentence_initial", "目前，母子二人术后恢复良好。"),
 # z68 cup penalty shoot-out
 ("z68", "role_swap", "北京国安队在点球大战中以5比4淘汰了长春亚泰队。"),
 ("z68", "ordinal", "国安队第一个出场的球员罚球被扑出，成为比赛的转折点。"),
 ("z68", "paraphrase", "双方在常规时间和加时赛中1比1战平，长春亚泰队随后通过点球大战以5比4胜出。"),
 # z69 medical malpractice
 ("z69", "role_swap", "市第一人民医院将患者家属刘某诉至法院。"),
 ("z69", "negation", "司法鉴定认为，医院的诊疗行为不存在过错。"),
 ("z69", "number_format", "法院判决医院承担百分之三十的赔偿责任。"),
 ("z69", "bound_true", "法院判决医院承担的赔偿责任比例不到一半。"),
 # z70 rental operator
 ("z70", "role_swap", "房东表示，他们此前已向运营商一次性交付了一年租金。"),
 ("z70", "paraphrase", "由于资金链断裂，这家长租公寓运营商已有三个月没有向房东支付租金。"),
 ("z70", "not_stated", "法院已判决运营商向租户退还剩余租金。"),
]


# ---------------------------------------------------------------- English
EN_SOURCES = {
 "e01": "The Forth Road Bridge opened to traffic in September 1964, when it was the longest suspension bridge outside the United States. Its main span measures 1,006 metres. In 2017 the Queensferry Crossing took over most of its traffic, and the older bridge is now reserved for buses, taxis, cyclists and pedestrians.",
 "e02": "The county health department reported 2,871 confirmed cases of Lyme disease in 2023, a 14 percent increase over the previous year. Nearly two thirds of the cases were recorded between June and August. Officials attributed part of the rise to a mild winter that allowed tick populations to grow, and urged residents to check for ticks after spending time outdoors.",
 "e03": "A federal jury in Delaware found that Corvex Medical infringed two patents held by rival Lumina Devices and awarded Lumina $41.5 million in damages. Lumina had sought more than $120 million. Corvex said it would appeal the verdict, arguing that the patents were invalid. The trial lasted nine days.",
 "e04": "Researchers at Norway's University of Bergen have identified a previously unknown species of deep-sea amphipod in samples collected at a depth of 4,200 metres off the coast of Svalbard. The crustacean, which measures about 3 centimetres, was named Eurythenes sigridae after the expedition's lead biologist, Sigrid Haugen. The samples were gathered during a 2021 research cruise, but the species was only formally described this year.",
 "e05": "The city's Department of Transportation will close the Elm Street bridge to all vehicle traffic from March 4 to April 19 for deck repairs. Pedestrians will still be able to cross on the north sidewalk. Detour signs will direct drivers to the Maple Avenue bridge, about half a mile to the east. The $2.3 million project is funded largely by a state grant.",
 "e06": "Norway's Karsten Warholm won the 400 metres hurdles at the European Championships in Rome in 47.50 seconds, his third European title in the event. Turkey's Ismail Nezir took silver in 48.37, and France's Wilfried Happio finished third.",
 "e07": "Harbor Foods reported net sales of $1.84 billion for fiscal 2023, up 6.2 percent from the prior year. Operating income fell 11 percent to $142 million, which the company attributed to higher freight and packaging costs. The company closed its plant in Dayton, Ohio, in the third quarter, eliminating about 210 jobs.",
 "e08": "Lake Baikal, in southern Siberia, is the deepest lake in the world, reaching a maximum depth of 1,642 metres. It holds roughly 23,000 cubic kilometres of water, about a fifth of the world's unfrozen fresh surface water. More than 300 rivers flow into the lake, but only one, the Angara, drains it. It was designated a UNESCO World Heritage Site in 1996.",
 "e09": "Enrollment in the district's public schools fell to 48,200 students this fall, down from 51,900 five years ago. The school board voted 5-2 on Tuesday to close three elementary schools at the end of the academic year. Board members said the closures would save about $6 million annually.",
 "e10": "The new light-rail line connecting the airport to the city centre carried 1.2 million passengers in its first six months of operation, well above the 900,000 forecast. Trains run every eight minutes at peak times. The 14.6-kilometre line has nine stations and cost $1.1 billion to build.",
 "e11": "Brazil's national supply agency Conab estimated the 2023/24 soybean harvest at 147.7 million tonnes, down 4.5 percent from the previous season's record. Drought in the centre-west and excessive rain in Rio Grande do Sul reduced yields. Mato Grosso remained the largest producing state.",
 "e12": "Average concentrations of fine particulate matter (PM2.5) in the city dropped to 8.9 micrograms per cubic metre last year, the lowest since monitoring began in 2001. The number of days with unhealthy air fell from 21 to 12. Officials credited the retirement of the last coal-fired power plant in the region, which closed in 2021.",
 "e13": "The Treaty of Waitangi was first signed on 6 February 1840 at Waitangi in the Bay of Islands by representatives of the British Crown and about 40 Maori chiefs. Copies were then carried around the country, and by September of that year more than 500 chiefs had signed. The English and Maori-language versions differ in important respects, a source of dispute ever since.",
 "e14": "Meridian Software said on Thursday that it would acquire the cybersecurity start-up Quillnet for $420 million in cash. Quillnet, founded in 2016 in Tel Aviv, employs about 180 people. The deal is expected to close in the first quarter of next year, subject to regulatory approval.",
 "e15": "Hurricane Idalia made landfall near Keaton Beach, Florida, on the morning of August 30 as a Category 3 storm with maximum sustained winds of 125 mph. It was the strongest hurricane to strike the Big Bend region in more than 125 years. Storm surge of 7 to 12 feet flooded coastal communities.",
 "e16": "The British Museum said it received 5.8 million visitors in 2023, up from 4.1 million the year before but still below the 6.2 million recorded in 2019. The museum's most visited exhibition of the year was a show on the Roman emperor Nero. Admission to the permanent collection remains free.",
 "e17": "The unemployment rate edged down to 3.7 percent in November from 3.9 percent in October, the Labor Department said. Employers added 199,000 jobs, slightly more than economists had expected. Average hourly earnings rose 4 percent from a year earlier.",
 "e18": "In a randomised trial of 1,150 adults with type 2 diabetes, participants who received the once-weekly injection lost an average of 12.4 percent of their body weight over 68 weeks, compared with 2.1 percent in the placebo group. Nausea was the most common side effect, reported by 31 percent of those taking the drug. Eight percent of participants in the treatment group discontinued because of adverse events.",
 "e19": "Starting July 1, residents of the borough will be required to separate food scraps from regular household waste. Food scraps will be collected weekly on the same day as recycling. Households that fail to comply may receive a warning notice, followed by fines of $25 for a second violation and $50 for each subsequent violation.",
 "e20": "A former bookkeeper at a Milwaukee church was sentenced on Friday to four years in prison for embezzling more than $640,000 from the parish over eight years. Judge Carolyn Reyes also ordered her to pay full restitution. Prosecutors had asked for a six-year sentence.",
 "e21": "NASA's Parker Solar Probe passed within 6.1 million kilometres of the Sun's surface on 24 December 2024, the closest approach by any human-made object. During the flyby it reached a speed of about 692,000 km/h. The probe, launched in August 2018, was out of contact with Earth for several days during the pass.",
 "e22": "Japan's exports rose 12.8 percent in March from a year earlier, led by shipments of cars and semiconductor equipment, the finance ministry said. Imports fell 2.3 percent, leaving a trade surplus of 441.5 billion yen. Exports to China increased 10.5 percent, while those to the United States climbed 9.4 percent.",
 "e23": "Tenants of the Parkview Towers complex say their landlord, Crestline Properties, is trying to evict them so it can convert the building into luxury condominiums. About 60 households have received notices to vacate by June 30. A tenants' association has filed a complaint with the city's housing board, which is scheduled to hold a hearing next month.",
 "e24": "Archaeologists excavating at the Ness of Brodgar in Orkney have uncovered the remains of a Neolithic building dating to around 3100 BC. The structure, measuring 25 by 20 metres, is one of the largest of its kind in northern Europe. The dig, which began in 2004, is due to be backfilled permanently at the end of this season.",
 "e25": "Manchester City beat Inter Milan 1-0 in Istanbul to win the Champions League for the first time, with Rodri scoring the only goal in the 68th minute. The victory completed a treble for Pep Guardiola's side, who had already won the Premier League and the FA Cup.",
 "e26": "Solar panels generated 14.2 percent of Germany's electricity in 2023, while wind turbines contributed 31.1 percent. Renewable sources together supplied more than half of the country's power for the first time. Coal's share fell to 26 percent, its lowest level since the 1950s.",
 "e27": "The company is recalling about 87,000 pounds of frozen chicken nuggets after consumers reported finding pieces of clear plastic in the product. The nuggets were produced on March 2 and shipped to retailers in 14 states. No injuries have been reported.",
 "e28": "Toni Morrison's novel Beloved was published in 1987 and won the Pulitzer Prize for Fiction the following year. In 1993 Morrison became the first African American woman to receive the Nobel Prize in Literature. The novel was adapted into a film starring Oprah Winfrey in 1998.",
 "e29": "In the final count, the Social Democrats won 41 of the 101 seats in parliament, while the Centre Party took 27 and the Greens 12. Turnout was 67.3 percent, the highest since 1999. Party leader Anna Lindqvist said she would begin coalition talks with the Greens on Monday.",
 "e30": "Kenya's Hellen Obiri won the women's race at the Boston Marathon for the second consecutive year, finishing in 2:27:37. Ethiopia's Sisay Lemma took the men's title in 2:06:17 after running the first half in a blistering 1:00:19.",
 "e31": "The European Medicines Agency's human medicines committee recommended approval of the Alzheimer's drug lecanemab on Thursday, reversing its negative opinion from last July. The recommendation is limited to patients who carry one or no copies of the ApoE4 gene, because of a higher risk of brain swelling in others. The European Commission usually follows the committee's advice within about two months.",
 "e32": "Residents in the Northgate and Riverside neighbourhoods are advised to boil tap water before drinking it until further notice, after a main break on Tuesday caused a drop in pressure. About 3,400 homes are affected. The utility said repairs were completed on Wednesday afternoon, but the advisory will remain in place until two consecutive rounds of testing come back clean.",
 "e33": "Global sales of electric cars reached almost 14 million in 2023, about 18 percent of all cars sold, according to the International Energy Agency. China accounted for roughly 60 percent of the total, Europe for about 25 percent and the United States for about 10 percent.",
 "e34": "Kindergarten registration for the 2025-26 school year opens on January 13 and closes on February 28. Children must turn five on or before September 1, 2025, to be eligible. Parents should bring a birth certificate, proof of residence and immunisation records to the school office.",
 "e35": "The James Webb Space Telescope has detected carbon dioxide in the atmosphere of WASP-39b, a hot gas giant about 700 light-years from Earth. It was the first clear detection of the gas in a planet outside the solar system. The planet orbits its star every four days and has a mass roughly that of Saturn.",
 "e36": "Shareholders of Alder Bank approved its merger with the larger Northfield Bancorp on Monday, with 92 percent of votes cast in favour. Under the terms of the deal, Alder shareholders will receive 0.45 Northfield shares for each share they own. The combined bank will keep the Northfield name and headquarters.",
 "e37": "The Court of Appeal dismissed the council's appeal on Wednesday, upholding a lower court ruling that the planning permission granted for the 240-home development was unlawful. The judges found the council had failed to assess the scheme's effect on a nearby nature reserve. The developer said it would submit a revised application.",
 "e38": "Measles cases in England reached 2,911 in 2024, the highest annual total since 2012. More than half of the cases were in children under 10. Uptake of the second dose of the MMR vaccine among five-year-olds stood at 83.9 percent, well below the 95 percent target set by the World Health Organization.",
 "e39": "Pacific Coast Rail said on Tuesday that it would cut 1,100 jobs, about 8 percent of its workforce, as freight volumes decline. The cuts will mainly affect maintenance and administrative staff. Chief executive Dana Whitfield said the company did not expect further layoffs this year.",
 "e40": "The median price of an existing single-family home in the region rose to $412,000 in the second quarter, up 5.1 percent from a year earlier. Sales volumes, however, fell 9 percent as mortgage rates remained near 7 percent. Homes spent a median of 24 days on the market, compared with 18 days a year earlier.",
 "e41": "A survey by the state wildlife agency counted 134 breeding pairs of bald eagles this spring, up from just 11 pairs in 1985. The birds were removed from the state's endangered species list in 2019. Biologists say the recovery reflects the ban on the pesticide DDT and the protection of nesting sites.",
 "e42": "Researchers at the Massachusetts Institute of Technology reported a battery cathode made from organic materials that charges faster than conventional cobalt-based cathodes. In laboratory tests, the material retained 90 percent of its capacity after 2,000 charge cycles. The team said the cathode could lower costs because it does not rely on cobalt or nickel.",
 "e43": "Iceland received 2.2 million foreign visitors in 2023, according to the Icelandic Tourist Board, close to the record of 2.3 million set in 2018. Visitors from the United States made up the largest group, followed by those from Britain and Germany.",
 "e44": "A jury ordered the city of Springfield to pay $2.5 million to a man who spent 14 years in prison for a robbery he did not commit. The man, Daniel Ortiz, was released in 2021 after DNA evidence implicated another suspect. The city had argued that its detectives acted in good faith.",
 "e45": "The county council approved a $318 million budget for the coming fiscal year by a vote of 7 to 2. The budget includes a 3 percent raise for county employees and $12 million for road repairs. Property tax rates will remain unchanged.",
 "e46": "The Airbus A321XLR made its first commercial flight on 13 November, when Iberia flew the aircraft from Madrid to Boston. The narrowbody jet has a range of up to 8,700 kilometres, allowing airlines to use single-aisle planes on transatlantic routes. Iberia was the launch operator of the type.",
 "e47": "The portrait by Gustav Klimt, which had been missing for nearly a century, sold at auction in Vienna for 32 million euros including fees. The hammer price of 30 million euros was at the low end of the pre-sale estimate of 30 million to 50 million euros. The buyer, bidding by telephone, was not identified.",
 "e48": "The high-speed line between Madrid and Barcelona, which opened in February 2008, cut the fastest journey time to 2 hours and 30 minutes. Since the market was opened to competition in 2021, three operators have run services on the route, and ticket prices have fallen by about 40 percent.",
 "e49": "The survey found that 13.5 percent of households experienced food insecurity at some point during the year, up from 12.8 percent the year before. Rates were highest among households with children headed by a single woman, at 34.7 percent.",
 "e50": "The container ship Dali struck a support pier of the Francis Scott Key Bridge in Baltimore at about 1:28 a.m. on March 26, causing most of the bridge to collapse into the Patapsco River. Six members of a road maintenance crew working on the bridge were killed. The ship had lost power twice in the minutes before the collision.",
 "e51": "A study of 3,000 honeybee colonies across Europe found that colonies exposed to the pesticide clothianidin produced 26 percent fewer new queens than unexposed colonies. The effect was observed in Germany and Hungary but not in the United Kingdom.",
 "e52": "Jannik Sinner defeated Daniil Medvedev 3-6, 3-6, 6-4, 6-4, 6-3 in the Australian Open final, becoming the first Italian man to win the tournament. Sinner had beaten the defending champion, Novak Djokovic, in the semi-finals.",
 "e53": "Beginning Monday, on-street parking meters in the downtown core will operate from 8 a.m. to 8 p.m., two hours later than the current 6 p.m. cutoff. Rates will stay at $2.50 per hour. Sundays and public holidays remain free.",
 "e54": "The Berlin Wall was opened on the night of 9 November 1989, after an East German spokesman mistakenly announced that new travel rules took effect immediately. Formal German reunification followed on 3 October 1990. The wall had stood for 28 years, dividing the city since August 1961.",
 "e55": "Wildfires burned 18.5 million hectares in Canada in 2023, more than double the previous record set in 1989. More than 230,000 people were evacuated over the course of the season. British Columbia and Quebec were among the hardest-hit provinces.",
 "e56": "St. Mary's Hospital will close its maternity ward on June 1, citing a shortage of obstetricians and a 30 percent drop in births over the past decade. Expectant mothers will be referred to Regional Medical Center, 25 miles away. The hospital delivered 312 babies last year.",
}

EN_PAIRS = [
 # e01
 ("e01", "neighbour_swap", "The Forth Road Bridge opened to traffic in 2017."),
 ("e01", "paraphrase", "The older Forth Road Bridge is now restricted to buses, taxis, cyclists and pedestrians."),
 ("e01", "not_stated", "The Forth Road Bridge is scheduled to close to all traffic by 2030."),
 # e02
 ("e02", "bound_true", "The county recorded under 3,000 confirmed Lyme disease cases in 2023."),
 ("e02", "bound_false", "The county recorded fewer than 2,500 confirmed Lyme disease cases in 2023."),
 ("e02", "antonym", "Lyme disease cases in the county fell by 14 percent in 2023."),
 ("e02", "sentence_initial", "Officials said a mild winter had helped tick populations grow, contributing to the rise in cases."),
 # e03
 ("e03", "role_swap", "A Delaware jury found that Lumina Devices infringed two patents held by Corvex Medical."),
 ("e03", "neighbour_swap", "The jury awarded Lumina more than $120 million in damages."),
 ("e03", "bound_true", "Lumina was awarded less than half of the damages it had sought."),
 ("e03", "number_format", "The patent trial lasted 9 days."),
 ("e03", "negation", "Corvex said it would not appeal the verdict."),
 # e04
 ("e04", "word_form", "Norwegian researchers have identified a previously unknown species of deep-sea amphipod off Svalbard."),
 ("e04", "date_changed", "The samples were gathered during a 2019 research cruise."),
 ("e04", "entity_swap", "The new amphipod species was found in samples collected off the coast of Greenland."),
 # e05
 ("e05", "entity_swap", "Detour signs will send drivers to the Oak Street bridge."),
 ("e05", "number_format", "The Elm Street bridge repair project will cost $2,300,000."),
 ("e05", "verbatim", "Pedestrians will still be able to cross the Elm Street bridge on the north sidewalk."),
 # e06
 ("e06", "word_form", "The Norwegian Karsten Warholm won the European 400 metres hurdles title in Rome in 47.50 seconds."),
 ("e06", "ordinal", "Warholm's win in Rome was his second European title in the 400 metres hurdles."),
 # e07
 ("e07", "antonym", "Harbor Foods' operating income rose 11 percent in fiscal 2023."),
 ("e07", "ordinal", "Harbor Foods closed its Dayton plant in the second quarter."),
 ("e07", "not_stated", "Harbor Foods plans to open a new plant to replace the Dayton facility."),
 # e08
 ("e08", "number_format", "Lake Baikal holds roughly 23 thousand cubic kilometres of water."),
 ("e08", "role_swap", "The Angara is one of the more than 300 rivers that flow into Lake Baikal."),
 ("e08", "date_changed", "Lake Baikal became a UNESCO World Heritage Site in 1986."),
 # e09
 ("e09", "number_changed", "The school board voted 6-1 to close three elementary schools."),
 ("e09", "sentence_initial", "In a divided vote, the school board decided on Tuesday to close three elementary schools."),
 # e10
 ("e10", "number_format", "The airport light-rail line carried 1,200,000 passengers in its first six months."),
 ("e10", "bound_false", "The airport line carried fewer than one million passengers in its first six months."),
 ("e10", "neighbour_swap", "The light-rail line had been forecast to carry 1.2 million passengers in its first six months."),
 # e11
 ("e11", "word_form", "Brazilian soybean output for the 2023/24 season was estimated at 147.7 million tonnes."),
 ("e11", "antonym", "Conab estimated that the 2023/24 soybean harvest was up 4.5 percent from the previous season."),
 ("e11", "entity_swap", "Rio Grande do Sul remained Brazil's largest soybean-producing state."),
 # e12
 ("e12", "number_changed", "The number of days with unhealthy air fell from 21 to 16."),
 ("e12", "sentence_initial", "According to officials, the retirement of the region's last coal-fired power plant helped improve the city's air."),
 # e13
 ("e13", "date_changed", "The Treaty of Waitangi was first signed on 6 February 1841."),
 ("e13", "neighbour_swap", "About 500 Maori chiefs signed the Treaty of Waitangi on 6 February 1840."),
 ("e13", "paraphrase", "The treaty's English and Maori texts differ significantly, which has fuelled disputes ever since."),
 ("e13", "verbatim", "The Treaty of Waitangi was first signed on 6 February 1840 at Waitangi in the Bay of Islands."),
 # e14
 ("e14", "role_swap", "Quillnet agreed to acquire Meridian Software for $420 million in cash."),
 ("e14", "ordinal", "The Quillnet deal is expected to close in the second quarter of next year."),
 ("e14", "word_form", "Meridian's acquisition of Quillnet is expected to close in the first quarter of next year."),
 ("e14", "not_stated", "Quillnet's founders will join Meridian's executive team after the deal closes."),
 # e15
 ("e15", "number_changed", "Hurricane Idalia made landfall as a Category 4 storm."),
 ("e15", "entity_swap", "Hurricane Idalia made landfall near Cedar Key, Florida."),
 ("e15", "sentence_initial", "Notably, Idalia was the strongest hurricane to strike the Big Bend region in more than 125 years."),
 # e16
 ("e16", "bound_false", "The British Museum's 2023 attendance exceeded its 2019 level."),
 ("e16", "number_format", "The British Museum had 5,800,000 visitors in 2023."),
 ("e16", "verbatim", "Admission to the British Museum's permanent collection remains free."),
 # e17
 ("e17", "antonym", "The unemployment rate rose to 3.7 percent in November."),
 # e18
 ("e18", "bound_false", "Fewer than 1,000 adults took part in the trial."),
 ("e18", "not_stated", "The weekly injection also significantly lowered participants' blood pressure."),
 # e19
 ("e19", "ordinal", "Borough residents will be fined $25 for a first violation of the food-scrap rule."),
 ("e19", "negation", "Food scraps will not be collected on the same day as recycling."),
 ("e19", "paraphrase", "From July 1, borough households must keep food scraps apart from their ordinary trash."),
 ("e19", "number_changed", "Repeat offenders may be fined $75 for each subsequent violation."),
 # e20
 ("e20", "neighbour_swap", "The former church bookkeeper was sentenced to six years in prison."),
 # e21
 ("e21", "date_changed", "Parker Solar Probe made its record close approach to the Sun on 24 December 2023."),
 ("e21", "negation", "The probe was never out of contact with Earth during the pass."),
 ("e21", "verbatim", "The Parker Solar Probe was launched in August 2018."),
 # e22
 ("e22", "word_form", "Japanese exports increased 12.8 percent year on year in March."),
 ("e22", "neighbour_swap", "Japan's exports to the United States climbed 10.5 percent in March."),
 ("e22", "antonym", "Japan ran a trade deficit in March."),
 # e23
 ("e23", "role_swap", "Crestline Properties has filed a complaint against the Parkview Towers tenants with the city's housing board."),
 ("e23", "paraphrase", "Roughly 60 households at Parkview Towers have been told to move out by June 30."),
 ("e23", "date_changed", "About 60 households have received notices to vacate by July 30."),
 ("e23", "not_stated", "The city's housing board has already ruled in favour of the tenants."),
 # e24
 ("e24", "bound_true", "The Neolithic building found at the Ness of Brodgar is more than 5,000 years old."),
 ("e24", "entity_swap", "Archaeologists have uncovered a large Neolithic building in Shetland."),
 ("e24", "verbatim", "The structure, measuring 25 by 20 metres, is one of the largest of its kind in northern Europe."),
 # e25
 ("e25", "role_swap", "Inter Milan beat Manchester City 1-0 in the Champions League final in Istanbul."),
 ("e25", "ordinal", "Manchester City won the Champions League for the second time."),
 ("e25", "sentence_initial", "In the end, a single goal from Rodri decided the final."),
 # e26
 ("e26", "word_form", "German wind turbines supplied 31.1 percent of the country's electricity in 2023."),
 ("e26", "ordinal", "In 2023 renewables supplied more than half of Germany's power for the second time."),
 # e27
 ("e27", "negation", "Injuries have been reported in connection with the recalled chicken nuggets."),
 ("e27", "number_format", "The recalled nuggets were shipped to retailers in fourteen states."),
 # e28
 ("e28", "neighbour_swap", "Beloved won the Pulitzer Prize for Fiction in 1987."),
 ("e28", "sentence_initial", "Five years after winning the Pulitzer, Morrison received the Nobel Prize in Literature."),
 ("e28", "ordinal", "Morrison was the second African American woman to win the Nobel Prize in Literature."),
 # e29
 ("e29", "number_changed", "The Social Democrats won 45 of the 101 seats in parliament."),
 ("e29", "bound_true", "Turnout in the election was above two thirds."),
 ("e29", "entity_swap", "Lindqvist said she would open coalition talks with the Centre Party on Monday."),
 ("e29", "bound_false", "The Social Democrats won a majority of the seats in parliament."),
 # e30
 ("e30", "word_form", "The Kenyan runner Hellen Obiri won the Boston Marathon women's race in 2:27:37."),
 ("e30", "ordinal", "Obiri won the Boston Marathon for the third straight year."),
 # e31
 ("e31", "antonym", "The EMA committee recommended rejecting lecanemab on Thursday."),
 ("e31", "paraphrase", "The committee's backing for lecanemab excludes patients who carry two copies of the ApoE4 gene."),
 ("e31", "not_stated", "Lecanemab will cost about 25,000 euros per patient per year in Europe."),
 # e32
 ("e32", "neighbour_swap", "The water main broke on Wednesday."),
 ("e32", "bound_true", "More than 3,000 homes are covered by the boil-water advisory."),
 # e33
 ("e33", "bound_true", "Electric cars made up fewer than one in five new cars sold worldwide in 2023."),
 ("e33", "entity_swap", "Europe accounted for roughly 60 percent of global electric car sales in 2023."),
 ("e33", "number_format", "China accounted for roughly sixty percent of global electric car sales in 2023."),
 ("e33", "bound_false", "Global electric car sales exceeded 15 million in 2023."),
 # e34
 ("e34", "date_changed", "Kindergarten registration for 2025-26 closes on February 14."),
 # e35
 ("e35", "ordinal", "It was the second clear detection of carbon dioxide in an exoplanet's atmosphere."),
 ("e35", "entity_swap", "WASP-39b has a mass roughly that of Jupiter."),
 ("e35", "verbatim", "The detection in WASP-39b was the first clear detection of carbon dioxide in a planet outside the solar system."),
 # e36
 ("e36", "role_swap", "Northfield shareholders will receive 0.45 Alder shares for each share they own."),
 ("e36", "antonym", "Alder Bank shareholders rejected the merger with Northfield Bancorp."),
 # e37
 ("e37", "role_swap", "The Court of Appeal dismissed the developer's appeal on Wednesday."),
 ("e37", "negation", "The judges found the council had assessed the scheme's effect on a nearby nature reserve."),
 ("e37", "number_changed", "The planning permission covered a 420-home development."),
 ("e37", "paraphrase", "Judges ruled that the council had not considered how the development would affect a nearby nature reserve."),
 # e38
 ("e38", "date_changed", "England's 2024 measles total was the highest annual figure since 2010."),
 # e39
 ("e39", "negation", "Whitfield said the company expected further layoffs this year."),
 ("e39", "number_format", "Pacific Coast Rail will eliminate 1100 jobs, or 8% of its workforce."),
 # e40
 ("e40", "antonym", "Home sales volumes in the region rose 9 percent in the second quarter."),
 ("e40", "paraphrase", "Homes took longer to sell than a year before, with the median time on the market rising from 18 to 24 days."),
 # e41
 ("e41", "bound_true", "The survey counted more than 120 breeding pairs of bald eagles this spring."),
 ("e41", "bound_false", "The survey counted more than 150 breeding pairs of bald eagles this spring."),
 ("e41", "neighbour_swap", "Bald eagles were removed from the state's endangered species list in 1985."),
 ("e41", "sentence_initial", "Biologists credit the ban on DDT and the protection of nesting sites for the eagles' recovery."),
 # e42
 ("e42", "negation", "The new MIT cathode relies on cobalt."),
 ("e42", "number_changed", "The material retained 90 percent of its capacity after 20,000 charge cycles."),
 ("e42", "not_stated", "The organic cathode is expected to enter commercial production within three years."),
 ("e42", "verbatim", "The team said the cathode could lower costs because it does not rely on cobalt or nickel."),
 # e43
 ("e43", "word_form", "American visitors formed the largest group of foreign tourists to Iceland in 2023."),
 ("e43", "ordinal", "Germany was the second-largest source of foreign visitors to Iceland in 2023."),
 ("e43", "bound_false", "Iceland's 2023 foreign visitor numbers beat the record set in 2018."),
 # e44
 ("e44", "role_swap", "A jury ordered Daniel Ortiz to pay $2.5 million to the city of Springfield."),
 ("e44", "negation", "Ortiz spent 14 years in prison for a robbery he committed."),
 ("e44", "number_format", "A jury awarded Daniel Ortiz two and a half million dollars."),
 ("e44", "date_changed", "Daniel Ortiz was released from prison in 2019."),
 # e45
 ("e45", "antonym", "The county council rejected the proposed $318 million budget."),
 ("e45", "not_stated", "The new budget includes funding for two new fire stations."),
 ("e45", "verbatim", "Under the new county budget, property tax rates will remain unchanged."),
 # e46
 ("e46", "role_swap", "Iberia's first A321XLR commercial flight went from Boston to Madrid."),
 ("e46", "entity_swap", "Aer Lingus was the launch operator of the A321XLR."),
 # e47
 ("e47", "bound_false", "The Klimt portrait sold for more than 50 million euros."),
 ("e47", "paraphrase", "An unidentified telephone bidder bought the Klimt portrait."),
 ("e47", "number_format", "The Klimt portrait fetched thirty-two million euros including fees."),
 ("e47", "not_stated", "The Klimt portrait will go on display at the Belvedere museum."),
 # e48
 ("e48", "neighbour_swap", "The Madrid-Barcelona high-speed line opened in 2021."),
 ("e48", "number_changed", "Four operators now run high-speed services between Madrid and Barcelona."),
 ("e48", "sentence_initial", "Since competition arrived in 2021, ticket prices on the Madrid-Barcelona route have dropped by roughly 40 percent."),
 # e49
 ("e49", "antonym", "Food insecurity among households declined from the previous year."),
 ("e49", "bound_true", "More than one in eight households experienced food insecurity during the year."),
 # e50
 ("e50", "number_changed", "Eight members of a road maintenance crew were killed when the Key Bridge collapsed."),
 ("e50", "entity_swap", "The container ship Ever Given struck a pier of the Francis Scott Key Bridge."),
 ("e50", "verbatim", "Six members of a road maintenance crew working on the Key Bridge were killed."),
 # e51
 ("e51", "negation", "The effect of clothianidin on queen production was also observed in the United Kingdom."),
 ("e51", "bound_true", "Colonies exposed to clothianidin raised about a quarter fewer new queens than unexposed colonies."),
 # e52
 ("e52", "role_swap", "Medvedev defeated Sinner in the Australian Open final."),
 ("e52", "negation", "Sinner won the Australian Open final without dropping a set."),
 ("e52", "word_form", "Sinner became Italy's first male Australian Open champion."),
 ("e52", "sentence_initial", "Remarkably, Sinner came back from two sets down to win the final."),
 # e53
 ("e53", "number_changed", "Downtown parking rates will rise to $3.50 per hour."),
 ("e53", "paraphrase", "Downtown meters will now run until 8 p.m. instead of 6 p.m."),
 # e54
 ("e54", "date_changed", "Formal German reunification took place on 3 October 1991."),
 ("e54", "bound_true", "The Berlin Wall stood for nearly three decades."),
 ("e54", "sentence_initial", "Less than a year later, Germany was formally reunified."),
 # e55
 ("e55", "word_form", "Canada's 2023 wildfire season forced the evacuation of more than 230,000 people."),
 ("e55", "date_changed", "The 2023 wildfire season more than doubled the previous Canadian record, set in 1995."),
 # e56
 ("e56", "not_stated", "St. Mary's plans to reopen its maternity ward once it hires more obstetricians."),
]


SUPPORTED = {"verbatim", "paraphrase", "bound_true", "word_form",
             "sentence_initial", "number_format"}
UNSUPPORTED = {"number_changed", "date_changed", "bound_false", "neighbour_swap",
               "negation", "antonym", "ordinal", "entity_swap", "role_swap",
               "not_stated"}

HERE = os.path.dirname(os.path.abspath(__file__))


def build(sources, pairs, lang, prefix):
    out = []
    for i, (skey, kind, claim) in enumerate(pairs, 1):
        assert kind in SUPPORTED | UNSUPPORTED, kind
        assert skey in sources, skey
        out.append({
            "id": f"{prefix}-{i:03d}",
            "lang": lang,
            "kind": kind,
            "label": "supported" if kind in SUPPORTED else "unsupported",
            "claim": claim,
            "source": sources[skey],
        })
    return out


def dump(rows, name):
    path = os.path.join(HERE, name)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(rows, f, ensure_ascii=False, indent=1)
        f.write("\n")
    return path


def report(path):
    with open(path, encoding="utf-8") as f:
        rows = json.load(f)
    c = Counter((r["kind"], r["label"]) for r in rows)
    print(path, len(rows), "pairs,", len({r["source"] for r in rows}), "distinct sources")
    for k, v in sorted(c.items()):
        print(f"  {k[0]:17s} {k[1]:12s} {v}")
    print("  labels:", dict(Counter(r["label"] for r in rows)))


if __name__ == "__main__":
    zh = build(ZH_SOURCES, ZH_PAIRS, "zh", "zh")
    en = build(EN_SOURCES, EN_PAIRS, "en", "enh")
    p1 = dump(zh, "citation_pairs_zh.json")
    p2 = dump(en, "heldout_pairs_en.json")
    report(p1)
    report(p2)
