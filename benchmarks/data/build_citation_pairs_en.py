"""Build citation_pairs_en.json from hand-written English claim/source pairs.

Every claim below was written by hand against its source text; the script only
attaches ids and labels and dumps the JSON.
"""
import json
import os
from collections import Counter

SUPPORTED = {"verbatim", "paraphrase", "bound_true", "word_form", "sentence_initial", "number_format"}
UNSUPPORTED = {"number_changed", "date_changed", "bound_false", "neighbour_swap", "negation",
               "antonym", "ordinal", "entity_swap", "role_swap", "not_stated"}

S = {}
P = []


def src(key, text):
    assert key not in S, key
    S[key] = text


def add(key, kind, claim):
    assert key in S, key
    assert kind in SUPPORTED | UNSUPPORTED, kind
    P.append((key, kind, claim))


# ---------------------------------------------------------------- infrastructure / history
src("bridge", "The Harlow Street Bridge opened to traffic in 1932 after four years of construction. It was widened to four lanes in 1968, and a pedestrian walkway was added in 1991. The 412-metre span now carries roughly 38,000 vehicles a day. In March 2023 the city council voted to close the bridge for repairs from next spring.")
add("bridge", "neighbour_swap", "The Harlow Street Bridge opened to traffic in 1968.")
add("bridge", "sentence_initial", "Decades later, in 1968, the Harlow Street Bridge was widened to four lanes.")
add("bridge", "verbatim", "The Harlow Street Bridge opened to traffic in 1932 after four years of construction.")

# ---------------------------------------------------------------- health bulletin
src("flu", "The county health department reported 2,871 confirmed cases of influenza during the 2023–24 season, up from 1,940 the previous season. Hospitalisations reached 312, and 14 deaths were recorded, all among residents over 65. Vaccination clinics administered 46,500 doses between October and February. Officials urged residents who had not yet been vaccinated to do so before the spring.")
add("flu", "bound_false", "The county recorded fewer than 2,000 confirmed influenza cases in the 2023–24 season.")
add("flu", "bound_true", "The county had under 3,000 confirmed flu cases during the 2023–24 season.")
add("flu", "number_format", "Fourteen flu deaths were recorded in the county, all among residents over 65.")

# ---------------------------------------------------------------- court ruling (civil)
src("deposits", "The Court of Appeal ruled on Tuesday that the landlord, Brenmoor Properties, had unlawfully withheld deposits from 87 former tenants. The three-judge panel upheld the lower court's finding and ordered the company to repay the deposits with interest within 60 days. Brenmoor had argued that the tenants failed to give proper notice. The company said it was considering an appeal to the Supreme Court.")
add("deposits", "role_swap", "The tenants argued that Brenmoor had failed to give proper notice.")
add("deposits", "antonym", "The Court of Appeal overturned the lower court's finding against Brenmoor Properties.")
add("deposits", "paraphrase", "A three-judge appeals panel ordered Brenmoor Properties to return the withheld deposits, with interest, within 60 days.")
add("deposits", "number_format", "The landlord was given sixty days to repay the deposits with interest.")

# ---------------------------------------------------------------- sports (biathlon/skiing relay)
src("relay", "Norway won the women's 4x5 km relay in Oberhof on Saturday, finishing 21.4 seconds ahead of Sweden. Germany took bronze in front of a home crowd of about 18,000. It was the Norwegian team's third relay victory of the season, and its winning time was 52 minutes 10.3 seconds.")
add("relay", "word_form", "The Norwegian team won the women's 4x5 km relay in Oberhof.")
add("relay", "ordinal", "The Oberhof win was Norway's first relay victory of the season.")

# ---------------------------------------------------------------- clinical trial
src("velostat", "In a randomised trial of 1,204 adults with moderate asthma, participants who received the inhaled drug velostat had 31% fewer severe attacks over 12 months than those given a placebo. The drug did not reduce hospital admissions, which were rare in both groups. Mild throat irritation was reported by 9% of the treated group and 4% of the placebo group. The study was funded by the drug's manufacturer, Calder Pharma.")
add("velostat", "negation", "Velostat reduced hospital admissions among adults with moderate asthma.")
add("velostat", "number_format", "Patients on velostat had 31 percent fewer severe asthma attacks than those on placebo.")
add("velostat", "neighbour_swap", "Participants given velostat had 9% fewer severe asthma attacks than those on placebo.")
add("velostat", "verbatim", "The drug did not reduce hospital admissions, which were rare in both groups.")

# ---------------------------------------------------------------- company filing
src("halvard", "Halvard Foods reported net revenue of $4.82 billion for fiscal 2023, a 6.1% increase over the prior year. Operating income fell to $391 million from $455 million, reflecting higher packaging and freight costs. The company closed its plant in Dayton, Ohio, in August and transferred production to its facility in Joliet, Illinois. Headcount at year-end stood at 12,400 employees.")
add("halvard", "antonym", "Halvard Foods' operating income rose in fiscal 2023.")
add("halvard", "number_format", "Halvard Foods reported net revenue of $4,820 million for fiscal 2023.")
add("halvard", "role_swap", "Halvard Foods closed its Joliet, Illinois, plant and moved production to Dayton.")

# ---------------------------------------------------------------- local government notice
src("bins", "Residents of the Eastfield ward are advised that refuse collection will move from Tuesdays to Thursdays from 6 May 2024. Garden waste will continue to be collected every second Monday. Households must register for the garden waste service by 30 April and pay an annual fee of £55. Bins should be placed at the kerb no later than 7am on collection day.")
add("bins", "date_changed", "From 6 June 2024, refuse collection in Eastfield will move to Thursdays.")
add("bins", "verbatim", "Bins should be placed at the kerb no later than 7am on collection day.")
add("bins", "bound_true", "Eastfield households must register for garden waste collection before May.")

# ---------------------------------------------------------------- history
src("karlstad", "Negotiations between Norway and Sweden opened in the Swedish town of Karlstad on 31 August 1905, and the resulting agreements were signed on 23 September. Norway's parliament, the Storting, had declared the union dissolved on 7 June. Sweden formally recognised Norway's independence on 26 October 1905. In November, Prince Carl of Denmark accepted the Norwegian throne and took the name Haakon VII.")
add("karlstad", "neighbour_swap", "Sweden formally recognised Norway's independence on 7 June 1905.")
add("karlstad", "word_form", "The Norwegian parliament declared the union with Sweden dissolved on 7 June 1905.")
add("karlstad", "entity_swap", "Prince Carl of Sweden accepted the Norwegian throne in November 1905.")
add("karlstad", "sentence_initial", "Eventually, Sweden formally recognised Norway's independence on 26 October 1905.")

# ---------------------------------------------------------------- transport
src("stations", "The regional rail operator said 134 stations would receive step-free access under the programme, at a cost of £610 million. Work at the first 20 stations is due to begin in January, with the remainder completed by 2029. The operator also said passenger numbers had recovered to 92% of pre-pandemic levels.")
add("stations", "bound_true", "More than 120 stations will get step-free access under the programme.")
add("stations", "bound_false", "More than 150 stations will receive step-free access under the programme.")
add("stations", "number_changed", "The step-free access programme will cost £510 million.")
add("stations", "not_stated", "The step-free access programme is being funded by the national government.")

# ---------------------------------------------------------------- climate science
src("seatemp", "Average sea surface temperature in the North Atlantic reached 24.9°C in August, the highest since satellite records began in 1982. Scientists at the monitoring centre said the anomaly was driven partly by weaker trade winds and reduced Saharan dust. Coral bleaching alerts were issued for 14 reef sites off Florida, compared with 6 the year before.")
add("seatemp", "not_stated", "Scientists said the record temperatures were mainly caused by climate change.")
add("seatemp", "number_changed", "Coral bleaching alerts were issued for 16 reef sites off Florida.")
add("seatemp", "paraphrase", "In August, North Atlantic surface waters averaged 24.9°C, a record for the satellite era that began in 1982.")
add("seatemp", "date_changed", "The August reading was the highest since satellite records of the North Atlantic began in 1972.")

# ---------------------------------------------------------------- court ruling (criminal)
src("leeds", "A jury at Leeds Crown Court found Martin Okafor, 42, not guilty of fraud on Friday after a six-week trial. His co-defendant, Daniel Reese, was convicted on two counts of money laundering and will be sentenced on 14 March. Prosecutors had alleged that the pair diverted £1.3 million from a children's charity between 2017 and 2020.")
add("leeds", "negation", "Martin Okafor was found guilty of fraud at Leeds Crown Court.")
add("leeds", "role_swap", "Daniel Reese was found not guilty of fraud, while his co-defendant Martin Okafor was convicted of money laundering.")
add("leeds", "entity_swap", "A jury convicted Martin Okafor on two counts of money laundering.")
add("leeds", "number_format", "Prosecutors alleged that the two men diverted £1,300,000 from a children's charity.")

# ---------------------------------------------------------------- education report
src("pupils", "The number of pupils in the district's primary schools fell by 4.2% between 2019 and 2023, to 18,650. Over the same period the number of teachers rose slightly, from 1,012 to 1,036, and the average class size dropped to 24. The report warned that three schools could face closure by 2026 if enrolment continues to decline.")
add("pupils", "antonym", "The number of primary school teachers in the district fell between 2019 and 2023.")
add("pupils", "number_changed", "The average class size in the district's primary schools dropped to 22.")

# ---------------------------------------------------------------- tech / acquisition
src("orbix", "Orbix Labs announced on Wednesday that it had acquired Fenwick Robotics, a warehouse automation start-up based in Pittsburgh, for about $340 million in cash and stock. Fenwick's 210 employees will join Orbix's logistics division. The deal is expected to close in the third quarter, subject to regulatory approval.")
add("orbix", "role_swap", "Fenwick Robotics announced that it had acquired Orbix Labs.")
add("orbix", "ordinal", "The Orbix–Fenwick deal is expected to close in the second quarter.")
add("orbix", "not_stated", "Orbix plans to cut jobs at Fenwick once the acquisition closes.")

# ---------------------------------------------------------------- weather
src("hilde", "Storm Hilde brought gusts of up to 145 km/h to the western coast on Sunday night, leaving about 62,000 homes without power. By Monday evening, electricity had been restored to all but 4,300 customers. Two people were injured by falling trees in Galway, but no deaths were reported. The national forecaster had issued a red warning for three counties.")
add("hilde", "negation", "No injuries were reported during Storm Hilde.")
add("hilde", "sentence_initial", "Officials said electricity had been restored to all but 4,300 customers by Monday evening.")

# ---------------------------------------------------------------- public health survey
src("smoking", "Adult smoking prevalence in Scotland fell to 11% in 2023, down from 15% in 2019, according to the Scottish Health Survey. Rates remained highest among people living in the most deprived areas, at 22%. Vaping among adults rose to 9%, with the sharpest increase among those aged 16 to 24.")
add("smoking", "number_format", "Eleven percent of adults in Scotland smoked in 2023.")
add("smoking", "word_form", "Scottish adults' smoking rate fell to 11% in 2023, down from 15% in 2019.")

# ---------------------------------------------------------------- culture
src("museum", "The Whitlock Museum reopened on 3 June after an 18-month refurbishment costing £12 million. Its new east wing houses the museum's collection of Bronze Age gold, which had been in storage since 2016. Admission remains free, although special exhibitions carry a charge of £8. More than 9,000 people visited in the first weekend.")
add("museum", "verbatim", "Admission remains free, although special exhibitions carry a charge of £8.")
add("museum", "date_changed", "The Whitlock Museum reopened on 3 July after an 18-month refurbishment.")
add("museum", "bound_false", "Fewer than 5,000 people visited the Whitlock Museum in its first weekend after reopening.")

# ---------------------------------------------------------------- labour market
src("jobs", "Unemployment in the province dropped to 5.8% in September, its lowest level since 2008. Employers added 14,200 jobs during the month, mostly in construction and health care. Manufacturing, however, shed 3,100 positions. Average hourly wages rose 4.5% from a year earlier.")
add("jobs", "antonym", "Manufacturing in the province added 3,100 positions in September.")
add("jobs", "bound_false", "The province's unemployment rate fell below 5.5% in September.")

# ---------------------------------------------------------------- astronomy
src("exoplanet", "Astronomers using the Very Large Telescope in Chile have detected water vapour in the atmosphere of TOI-2291b, an exoplanet about 97 light-years from Earth. The planet is roughly 2.4 times the radius of Earth and orbits a red dwarf every 19 days. The team, led by Dr. Anaya Kher of the University of Lisbon, said follow-up observations with the James Webb Space Telescope were needed to confirm the finding.")
add("exoplanet", "entity_swap", "Water vapour on TOI-2291b was detected using the James Webb Space Telescope.")
add("exoplanet", "bound_true", "TOI-2291b lies less than 100 light-years from Earth.")
add("exoplanet", "paraphrase", "According to the researchers, the detection still has to be confirmed by further observations with the James Webb Space Telescope.")

# ---------------------------------------------------------------- agriculture
src("wheat", "Wheat output in the region is forecast at 3.4 million tonnes this year, down 12% from last year's harvest, after a dry spring reduced yields. Barley production is expected to rise 5% to 910,000 tonnes. The agriculture ministry said it would release 200,000 tonnes from state reserves to stabilise flour prices.")
add("wheat", "number_format", "Wheat output in the region is forecast at 3,400,000 tonnes this year.")
add("wheat", "not_stated", "The ministry plans to import wheat to make up for the poor harvest.")
add("wheat", "paraphrase", "A dry spring cut yields, leaving this year's wheat harvest forecast 12% below last year's.")

# ---------------------------------------------------------------- aviation
src("drone", "Flights at Brennick Airport were suspended for nearly five hours on Thursday after a drone was spotted near the main runway. About 140 departures and arrivals were cancelled or diverted, affecting roughly 21,000 passengers. Police arrested a 27-year-old man in a nearby village later that evening. It was the second drone-related closure at the airport this year.")
add("drone", "ordinal", "It was the third drone-related closure at Brennick Airport this year.")
add("drone", "sentence_initial", "Later that evening, police arrested a 27-year-old man in a nearby village.")

# ---------------------------------------------------------------- housing
src("homes", "The city approved 2,310 new homes in 2023, short of its annual target of 3,000. Just 18% of the approved units were classed as affordable, compared with a goal of 35%. The housing committee chair, Lena Marsh, said planning delays and rising construction costs were mainly to blame.")
add("homes", "bound_true", "The city approved fewer than 2,500 new homes in 2023.")
add("homes", "bound_false", "The city approved more than 2,500 new homes in 2023.")
add("homes", "not_stated", "Lena Marsh said the city would lower its annual housing target.")

# ---------------------------------------------------------------- football
src("verde", "Atlético Verde beat Ciudad Real 3–1 on Sunday to move top of the league table for the first time since 2011. Striker Tomás Ibarra scored twice before half-time, and defender Luis Pardo added a third in the 78th minute. Ciudad Real's only goal came from a penalty by Marco Díaz. Verde now lead second-placed Castillo FC by two points.")
add("verde", "entity_swap", "Luis Pardo scored twice before half-time for Atlético Verde.")
add("verde", "role_swap", "Ciudad Real beat Atlético Verde 3–1 on Sunday.")
add("verde", "ordinal", "Atlético Verde now lead third-placed Castillo FC by two points.")
add("verde", "verbatim", "Ciudad Real's only goal came from a penalty by Marco Díaz.")

# ---------------------------------------------------------------- hospital
src("aldric", "St. Aldric's Hospital will add 48 beds to its emergency department by the end of 2025, the health authority announced. The expansion, costing €27 million, follows a report that found average waiting times in the department exceeded 9 hours last winter. Construction is due to start in February and will be carried out in two phases.")
add("aldric", "not_stated", "The expansion of St. Aldric's emergency department will be funded by the European Union.")
add("aldric", "number_changed", "Construction at St. Aldric's will be carried out in three phases.")

# ---------------------------------------------------------------- energy
src("denmark", "Denmark generated 57% of its electricity from wind in 2023, the highest share of any country in the world. Solar contributed a further 9%. The government aims to quadruple onshore wind and solar capacity by 2030, while offshore wind capacity is set to reach at least 12.9 gigawatts.")
add("denmark", "word_form", "Danish wind power supplied 57% of the country's electricity in 2023.")
add("denmark", "bound_false", "Wind supplied over 60% of Denmark's electricity in 2023.")

# ---------------------------------------------------------------- crime statistics
src("burglary", "Recorded burglaries in the borough fell by 17% in the year to March, to 2,140 offences. Vehicle crime dropped by 9%, but reports of shoplifting climbed 28% to 3,960. The borough commander, Chief Superintendent Ruth Adeyemi, attributed the rise in shoplifting to the cost-of-living crisis.")
add("burglary", "antonym", "Reports of shoplifting in the borough fell by 28%.")
add("burglary", "neighbour_swap", "Recorded burglaries in the borough fell by 9% in the year to March.")
add("burglary", "sentence_initial", "Overall, recorded burglaries in the borough fell by 17% in the year to March.")

# ---------------------------------------------------------------- regulation
src("epc", "Under the new rules, which take effect on 1 January 2025, landlords must prove that a property meets energy rating C or higher before signing a new tenancy. Existing tenancies will have until 2028 to comply. Landlords who fail to comply face fines of up to £30,000 per property. Properties listed as historic buildings are exempt.")
add("epc", "negation", "Properties listed as historic buildings are not exempt from the new energy rules.")
add("epc", "date_changed", "The new energy rules for landlords take effect on 1 January 2026.")
add("epc", "neighbour_swap", "Existing tenancies will have until 2025 to comply with the new rules.")
add("epc", "verbatim", "Landlords who fail to comply face fines of up to £30,000 per property.")

# ---------------------------------------------------------------- wildlife
src("gorilla", "A survey published this week counted 1,063 mountain gorillas in the Virunga Massif and Bwindi forest, up from 880 in 2010. Conservationists credited anti-poaching patrols and community-based tourism for the increase. The species remains listed as endangered, and researchers warned that respiratory diseases passed on by humans are a growing threat.")
add("gorilla", "antonym", "Mountain gorilla numbers in the Virunga Massif and Bwindi have declined since 2010.")
add("gorilla", "not_stated", "The survey found that poaching has been eliminated in the Virunga Massif.")
add("gorilla", "paraphrase", "Conservationists attributed the growth in mountain gorilla numbers to anti-poaching patrols and community-based tourism.")
add("gorilla", "negation", "Mountain gorillas are no longer listed as endangered.")

# ---------------------------------------------------------------- airline restructuring
src("trelawny", "Trelawny Airways will cut 1,450 jobs, about 8% of its workforce, as part of a restructuring announced on Monday. Most of the cuts will fall on administrative and management roles; no pilots will be made redundant. The airline also confirmed it would retire its remaining six A340 aircraft by the end of next year.")
add("trelawny", "number_format", "Trelawny Airways will cut 1,450 jobs, roughly eight percent of its workforce.")
add("trelawny", "bound_false", "Trelawny Airways plans to cut more than 2,000 jobs.")
add("trelawny", "sentence_initial", "Separately, the airline confirmed it would retire its six remaining A340 aircraft by the end of next year.")

# ---------------------------------------------------------------- archaeology
src("banna", "Archaeologists working at the Roman fort of Banna in Cumbria recovered 17 wooden writing tablets during the 2023 season. They also found 42 leather shoes, most of them belonging to children. The tablets, preserved in waterlogged soil, date to around AD 105. One contains a request from a soldier named Candidus for more socks.")
add("banna", "neighbour_swap", "Archaeologists recovered 42 wooden writing tablets at Banna in 2023.")
add("banna", "bound_true", "The writing tablets found at Banna date to the early second century AD.")
add("banna", "entity_swap", "One of the Banna tablets contains a request from a soldier named Flavius for more socks.")

# ---------------------------------------------------------------- transport fares
src("fares", "From 2 March, the standard single bus fare in the city will rise from £1.80 to £2.00, the first increase since 2019. Weekly passes will go up by 50p to £17.50. Children under 11 will continue to travel free, and the concessionary fare for pensioners will not change.")
add("fares", "antonym", "The price of a weekly bus pass will go down by 50p.")
add("fares", "ordinal", "The March rise will be the second increase in the standard single bus fare since 2019.")
add("fares", "negation", "Children under 11 will no longer travel free on the city's buses.")
add("fares", "number_format", "Weekly bus passes will go up by fifty pence to £17.50.")

# ---------------------------------------------------------------- animal cognition
src("kea", "Researchers at the University of Auckland found that kea, an alpine parrot native to New Zealand, can make predictions based on probability. In the experiments, six birds chose between jars containing different ratios of black and orange tokens and consistently picked from the jar with more black tokens, which had been rewarded. The study was published in Nature Communications in March 2020.")
add("kea", "word_form", "New Zealand's native kea can make predictions based on probability, researchers found.")
add("kea", "sentence_initial", "In all, six birds took part in the experiments.")
add("kea", "date_changed", "The kea study was published in Nature Communications in March 2021.")

# ---------------------------------------------------------------- roadworks notice
src("castle", "Castle Road will be closed between Mill Lane and the Hollis roundabout from 8 to 19 July to allow Severn Water to replace a 90-year-old water main. A signed diversion will operate via Queensway and Park Avenue. Access for residents and emergency vehicles will be maintained at all times. Bus routes 4 and 12 will be diverted.")
add("castle", "entity_swap", "Castle Road is being closed so that Thames Water can replace a water main.")
add("castle", "number_changed", "The closure will allow Severn Water to replace a 60-year-old water main.")
add("castle", "verbatim", "A signed diversion will operate via Queensway and Park Avenue.")

# ---------------------------------------------------------------- election
src("election", "In the municipal election held on 12 November, the Green Alliance won 14 of the council's 41 seats, up from 9 at the previous vote. The Social Democrats lost four seats and finished with 11. Turnout was 58.3%, the highest since 1998. Mayor Elisa Brandt, who was not a candidate, said she would step down in January.")
add("election", "antonym", "The Social Democrats gained four seats in the municipal election.")
add("election", "negation", "Mayor Elisa Brandt was a candidate in the November municipal election.")
add("election", "bound_true", "Turnout in the municipal election was nearly 60%.")
add("election", "neighbour_swap", "The Green Alliance won 11 of the council's 41 seats.")

# ---------------------------------------------------------------- product recall
src("kettle", "Kestrel Appliances is recalling about 310,000 electric kettles sold in the US and Canada between March 2021 and June 2023 because the base can overheat. The company has received 57 reports of overheating, including 12 minor burns; no fires have been reported. Customers should stop using the kettles and contact Kestrel for a free replacement.")
add("kettle", "negation", "Kestrel has received reports of fires caused by the kettles.")
add("kettle", "date_changed", "The recalled kettles were sold between March 2020 and June 2023.")
add("kettle", "word_form", "Kestrel's recall covers about 310,000 electric kettles sold in the United States and Canada.")
add("kettle", "paraphrase", "Owners of the affected kettles are advised to stop using them and contact Kestrel, which will replace them free of charge.")

# ---------------------------------------------------------------- humanitarian
src("wfp", "The World Food Programme said on Friday it had been forced to cut rations for 1.4 million refugees in Bangladesh's Cox's Bazar camps after receiving only 47% of the funding it needs for the year. Monthly food vouchers will fall from $10 to $8 per person. The agency warned that malnutrition rates among children under five were already above the emergency threshold of 15%.")
add("wfp", "word_form", "The World Food Programme's funding shortfall has forced ration cuts for 1.4 million refugees in Cox's Bazar.")
add("wfp", "bound_true", "The WFP had received less than half of the funding it needs for the year.")
add("wfp", "number_changed", "Monthly food vouchers for the refugees will fall to $6 per person.")
add("wfp", "not_stated", "The ration cuts were caused by a reduction in US contributions to the WFP.")

# ---------------------------------------------------------------- epidemiology
src("sleep", "A study of 68,000 nurses followed for 24 years found that those who slept five hours or less a night were 15% more likely to develop obesity than those who slept seven hours. The association remained after adjusting for diet and physical activity. The authors cautioned that the study was observational and could not prove that short sleep causes weight gain.")
add("sleep", "negation", "The study showed that short sleep causes weight gain.")
add("sleep", "number_format", "The nurses in the sleep study were followed for twenty-four years.")
add("sleep", "sentence_initial", "Notably, the association persisted after the researchers adjusted for diet and physical activity.")

# ---------------------------------------------------------------- tennis
src("tennis", "Elena Marchetti won her first Grand Slam title at the Australian Open on Saturday, defeating the second seed, Hana Kobayashi, 6-4, 3-6, 7-5. Marchetti, 22, had saved two match points in her quarter-final against Petra Lind. She will rise to fourth in the world rankings on Monday.")
add("tennis", "ordinal", "Marchetti will rise to third in the world rankings on Monday.")
add("tennis", "role_swap", "Hana Kobayashi defeated Elena Marchetti in the Australian Open final.")
add("tennis", "entity_swap", "Marchetti saved two match points in her quarter-final against Hana Kobayashi.")
add("tennis", "verbatim", "Marchetti, 22, had saved two match points in her quarter-final against Petra Lind.")

# ---------------------------------------------------------------- climate policy
src("boilers", "The city council voted 9–4 on Wednesday to ban gas boilers in new buildings from 2027. Buildings already connected to the gas network will not be affected. Councillor Omar Haddad, who proposed the measure, said it would cut the city's emissions by around 40,000 tonnes a year by 2035.")
add("boilers", "antonym", "The city council rejected a ban on gas boilers in new buildings.")
add("boilers", "number_changed", "The council voted 10–3 to ban gas boilers in new buildings.")
add("boilers", "not_stated", "The gas boiler ban was opposed by the local construction industry.")

# ---------------------------------------------------------------- accident investigation
src("train", "The investigation found that the train was travelling at 92 km/h when it entered the curve, well above the 60 km/h limit. The driver had been on duty for 11 hours and had taken one break. The report made 14 recommendations, including the installation of automatic speed enforcement on the line by 2026.")
add("train", "verbatim", "The driver had been on duty for 11 hours and had taken one break.")
add("train", "date_changed", "The report recommended installing automatic speed enforcement on the line by 2028.")

# ---------------------------------------------------------------- higher education
src("intl", "Applications from international students to UK universities fell by 4% this year, with the steepest decline among students from Nigeria, down 46%. Applications from China rose 3%, and India remained the largest source of postgraduate students. Universities UK said the drop was linked to restrictions on dependants' visas introduced in January.")
add("intl", "word_form", "Nigerian applications to UK universities fell by 46%.")
add("intl", "entity_swap", "China remained the largest source of postgraduate students for UK universities.")
add("intl", "antonym", "Applications from China to UK universities fell 3%.")
add("intl", "date_changed", "The restrictions on dependants' visas were introduced in March.")

# ---------------------------------------------------------------- library notice
src("library", "The Brookvale library will extend its opening hours from 1 September, staying open until 8pm on weekdays instead of 6pm. The change is funded by a £140,000 grant from the Harcourt Foundation. Saturday hours will stay the same, and the branch will remain closed on Sundays.")
add("library", "number_changed", "The longer hours are funded by a £104,000 grant from the Harcourt Foundation.")
add("library", "sentence_initial", "Starting in September, the Brookvale library will stay open until 8pm on weekdays.")

# ---------------------------------------------------------------- drug regulation
src("nexavol", "The European Medicines Agency recommended approval of Nexavol, a once-weekly injection for type 2 diabetes, on 21 March. In trials, patients lost an average of 6.8 kg over 40 weeks and their HbA1c fell by 1.9 percentage points. The agency rejected a separate application to use the drug for weight loss in people without diabetes.")
add("nexavol", "antonym", "The EMA approved Nexavol for weight loss in people without diabetes.")
add("nexavol", "bound_true", "Patients in the Nexavol trials lost nearly 7 kg on average.")
add("nexavol", "paraphrase", "On 21 March the EMA recommended approving Nexavol, a weekly injectable treatment for type 2 diabetes.")
add("nexavol", "number_changed", "In the Nexavol trials, patients' HbA1c fell by 1.4 percentage points.")

# ---------------------------------------------------------------- history
src("panama", "Construction of the Panama Canal by the United States began in 1904, and the canal opened to shipping on 15 August 1914. The project cost about $375 million and employed more than 40,000 workers at its peak. An earlier French effort, led by Ferdinand de Lesseps, had been abandoned in 1889.")
add("panama", "word_form", "France's earlier attempt to build the canal, led by Ferdinand de Lesseps, was abandoned in 1889.")
add("panama", "bound_true", "The American construction of the Panama Canal took about a decade.")
add("panama", "date_changed", "The Panama Canal opened to shipping on 15 August 1915.")
add("panama", "neighbour_swap", "The French canal effort led by Ferdinand de Lesseps was abandoned in 1904.")
add("panama", "entity_swap", "An earlier Spanish effort to build the canal had been abandoned in 1889.")

# ---------------------------------------------------------------- cybersecurity
src("ransom", "The hospital group said a ransomware attack on 9 October had disrupted appointment systems at five of its seven sites. Patient records were not accessed, according to an initial forensic review. The group did not pay the ransom and restored most systems from backups within four days.")
add("ransom", "number_changed", "The attack disrupted appointment systems at six of the group's seven sites.")
add("ransom", "paraphrase", "Without paying a ransom, the group brought most of its systems back from backups within four days.")
add("ransom", "date_changed", "The ransomware attack on the hospital group took place on 9 November.")

# ---------------------------------------------------------------- space
src("chandrayaan", "Chandrayaan-3's lander touched down near the Moon's south pole on 23 August 2023, making India the fourth country to achieve a soft landing on the Moon, after the Soviet Union, the United States and China, and the first to land near the lunar south pole. Its rover, Pragyan, travelled about 100 metres over the following ten days before being put into sleep mode.")
add("chandrayaan", "ordinal", "India became the third country to achieve a soft landing on the Moon.")
add("chandrayaan", "word_form", "The Indian lander touched down near the Moon's south pole on 23 August 2023.")
add("chandrayaan", "bound_true", "The Pragyan rover covered roughly 100 metres in less than two weeks.")
add("chandrayaan", "entity_swap", "China was the first country to land near the lunar south pole.")

# ---------------------------------------------------------------- employment tribunal
src("tribunal", "An employment tribunal ruled that Clarion Logistics unfairly dismissed warehouse supervisor Priya Nair after she raised safety concerns. The tribunal awarded her £48,600 in compensation. Clarion had claimed that Nair was dismissed for repeated lateness, but the panel found no evidence to support this.")
add("tribunal", "role_swap", "Nair argued that she had been dismissed for repeated lateness.")
add("tribunal", "number_changed", "The tribunal awarded Priya Nair £46,800 in compensation.")
add("tribunal", "paraphrase", "The panel found no evidence for Clarion's claim that Nair had been sacked for persistent lateness.")
add("tribunal", "verbatim", "An employment tribunal ruled that Clarion Logistics unfairly dismissed warehouse supervisor Priya Nair after she raised safety concerns.")

# ---------------------------------------------------------------- food safety
src("hygiene", "Inspectors visited 1,260 restaurants in the city last year and ordered 37 to close temporarily over hygiene failures. Rodent infestations were the most common reason, cited in 21 closures. The share of premises rated 'very good' rose to 71%, up from 64% in 2022.")
add("hygiene", "neighbour_swap", "Inspectors ordered 21 restaurants in the city to close temporarily last year.")

# ---------------------------------------------------------------- demography
src("lisbon", "The population of Lisbon's metropolitan area grew to 2.9 million in 2023, driven mainly by immigration. Foreign residents now make up 14% of the area's population, compared with 6% a decade earlier. Brazilians are the largest group, followed by people from India and Nepal.")
add("lisbon", "word_form", "Brazilian nationals form the largest group of foreign residents in the Lisbon area.")
add("lisbon", "ordinal", "People from Nepal are the second-largest group of foreign residents in the Lisbon area.")
add("lisbon", "bound_true", "More than one in ten residents of Lisbon's metropolitan area is foreign.")
add("lisbon", "not_stated", "Rising rents have pushed many long-time residents out of central Lisbon.")

# ---------------------------------------------------------------- national park notice
src("redmoor", "Owing to the risk of wildfire, all barbecues and open fires are banned in Redmoor National Park from 1 June until 30 September. Rangers will patrol popular sites at weekends, and anyone found lighting a fire may be fined up to £1,000. Camping remains permitted at the four designated campsites.")
add("redmoor", "negation", "Camping is not permitted at Redmoor's designated campsites during the fire ban.")
add("redmoor", "date_changed", "Barbecues and open fires are banned in Redmoor National Park until 31 October.")
add("redmoor", "paraphrase", "Anyone caught lighting a fire in Redmoor National Park could face a fine of as much as £1,000.")

# ---------------------------------------------------------------- athletics
src("marathon", "Kenya's Daniel Kiprop won the Berlin Marathon in 2:03:41, the fastest time in the world this year. Ethiopia's Abebe Tola finished second, 38 seconds behind, and Kiprop's compatriot Josphat Ruto was third. In the women's race, Tigist Mengistu of Ethiopia won in 2:17:05.")
add("marathon", "word_form", "Kenyan runner Daniel Kiprop won the Berlin Marathon in 2:03:41.")
add("marathon", "entity_swap", "Abebe Tola won the Berlin Marathon in 2:03:41.")
add("marathon", "ordinal", "Josphat Ruto finished second in the Berlin Marathon.")
add("marathon", "bound_true", "Abebe Tola finished less than a minute behind the winner.")

# ---------------------------------------------------------------- water notice
src("boilwater", "A boil-water notice issued for 23,000 households in the Ashby area on Monday was lifted on Thursday after tests showed no further traces of E. coli. The contamination was traced to a damaged pipe at the Fernhill treatment works. Water company Midland Supply said affected customers would each receive £30 in compensation.")
add("boilwater", "verbatim", "The contamination was traced to a damaged pipe at the Fernhill treatment works.")
add("boilwater", "number_format", "The boil-water notice affected some twenty-three thousand households in the Ashby area.")
add("boilwater", "not_stated", "Several people fell ill after drinking contaminated water in Ashby.")
add("boilwater", "sentence_initial", "Three days later, the notice was lifted after tests showed no further traces of E. coli.")

# ---------------------------------------------------------------- literary prize
src("prize", "The novelist Amara Osei won this year's Harwood Prize for her third novel, The Salt Years, beating five other shortlisted titles. The judges, chaired by the critic Colm Duffy, described the book as 'a quiet masterpiece'. The prize is worth £25,000. Last year's winner was the poet-turned-novelist Rhys Tanner.")
add("prize", "ordinal", "Amara Osei won the Harwood Prize for her second novel.")
add("prize", "role_swap", "Last year's Harwood Prize went to Amara Osei, and this year's to Rhys Tanner.")
add("prize", "entity_swap", "The Harwood Prize judges were chaired by Rhys Tanner.")
add("prize", "paraphrase", "The Salt Years, Amara Osei's third novel, took this year's £25,000 Harwood Prize.")
add("prize", "number_changed", "The Salt Years beat seven other shortlisted titles to win the Harwood Prize.")

# ---------------------------------------------------------------- shipping
src("port", "Container traffic through the port rose 7% in the first half of the year to 4.1 million TEU, as shipping lines diverted vessels away from the Red Sea. The port authority said average waiting times for berths had increased from 1.2 days to 2.6 days. A new terminal with capacity for 1.5 million TEU is scheduled to open in 2026.")
add("port", "neighbour_swap", "The port handled 1.5 million TEU in the first half of the year.")
add("port", "sentence_initial", "Looking ahead, a new terminal with capacity for 1.5 million TEU is scheduled to open in 2026.")

# ---------------------------------------------------------------- legislation
src("senate", "The Senate passed the data privacy bill by 61 votes to 38 on Thursday, sending it to the House of Representatives. The bill would require companies to obtain explicit consent before selling personal data and would create a new enforcement office within the Federal Trade Commission. An amendment to exempt small businesses with fewer than 50 employees was defeated.")
add("senate", "role_swap", "The House of Representatives passed the data privacy bill, sending it to the Senate.")
add("senate", "antonym", "An amendment to exempt small businesses from the data privacy bill was adopted.")
add("senate", "verbatim", "The bill would require companies to obtain explicit consent before selling personal data.")

# ---------------------------------------------------------------- outbreak
src("measles", "Health authorities confirmed 212 cases of measles in the province between January and April, compared with 19 in the whole of last year. Most of those infected were unvaccinated children under 10. Vaccination coverage for the second dose has fallen to 84%, well below the 95% needed to prevent outbreaks.")
add("measles", "bound_false", "Measles cases between January and April were more than fifteen times last year's total.")
add("measles", "negation", "Most of those infected with measles had been vaccinated.")
add("measles", "ordinal", "Vaccination coverage for the first dose of the measles vaccine has fallen to 84%.")
add("measles", "not_stated", "Two children have died of measles in the province this year.")

# ---------------------------------------------------------------- tourism
src("iceland", "Iceland received 2.2 million foreign visitors in 2023, close to the record set in 2018. Americans were the largest group, accounting for about a quarter of arrivals, followed by British and German visitors. Tourism now accounts for roughly 8% of the country's GDP.")
add("iceland", "bound_false", "More than 2.5 million foreign tourists visited Iceland in 2023.")
add("iceland", "ordinal", "German visitors were the second-largest group of tourists in Iceland.")

# ---------------------------------------------------------------- telecoms regulator
src("veltro", "The telecoms regulator fined Veltro Mobile €4.5 million for overcharging roughly 190,000 customers who had ended their contracts. Veltro must also refund the affected customers within three months. The company said it accepted the findings and had already fixed the billing error, which it blamed on a software update in 2021.")
add("veltro", "antonym", "Veltro Mobile rejected the regulator's findings.")
add("veltro", "date_changed", "Veltro blamed the billing error on a software update in 2022.")
add("veltro", "sentence_initial", "In addition, Veltro must refund the affected customers within three months.")

# ---------------------------------------------------------------- ancient DNA
src("tomb", "Analysis of DNA from 12 skeletons found at the Neolithic tomb showed that at least five of the individuals were closely related, including a woman and her two sons. The burials date to between 3700 and 3500 BC. The researchers said the findings suggest that descent was traced through the male line.")
add("tomb", "bound_true", "The burials at the Neolithic tomb are more than 5,000 years old.")
add("tomb", "number_changed", "DNA was analysed from 15 skeletons found at the tomb.")
add("tomb", "paraphrase", "At least five of the people buried in the tomb were close relatives, among them a woman and her two sons.")

# ---------------------------------------------------------------- volunteering / environment
src("beach", "More than 3,000 volunteers collected 14 tonnes of litter from the county's beaches during the annual spring clean on 20 and 21 April. Plastic bottles and food packaging made up around 60% of the waste by weight. The organisers, Coastwatch, said the total was down from 19 tonnes last year, which they attributed to the new deposit return scheme.")
add("beach", "neighbour_swap", "Volunteers collected 19 tonnes of litter from the county's beaches this spring.")
add("beach", "sentence_initial", "In total, volunteers collected 14 tonnes of litter from the county's beaches.")

# ---------------------------------------------------------------- chess
src("ding", "Ding Liren became China's first world chess champion in April 2023, beating Ian Nepomniachtchi of Russia in a rapid tie-break in Astana after their 14-game classical match ended level at 7–7. The title had become vacant after Magnus Carlsen declined to defend it.")
add("ding", "word_form", "Ding Liren became the first Chinese world chess champion in April 2023.")
add("ding", "entity_swap", "The 2023 world championship match between Ding and Nepomniachtchi was played in Almaty.")
add("ding", "role_swap", "Ian Nepomniachtchi beat Ding Liren in a rapid tie-break in Astana.")
add("ding", "antonym", "Magnus Carlsen agreed to defend his world title in 2023.")

# ---------------------------------------------------------------- planning court case
src("quarry", "The High Court dismissed a challenge by residents of Marlow Vale against the expansion of Heyford Quarry, ruling that the county council had followed the correct procedure. The expansion will allow the quarry to extract an additional 2.5 million tonnes of limestone over 15 years. The residents' group said it would not appeal.")
add("quarry", "negation", "The Marlow Vale residents' group said it would appeal the ruling.")
add("quarry", "antonym", "The High Court upheld the Marlow Vale residents' challenge to the quarry expansion.")
add("quarry", "word_form", "Heyford Quarry will be allowed to expand and extract an additional 2.5 million tonnes of limestone over 15 years.")
add("quarry", "number_format", "The expansion allows Heyford Quarry to extract a further 2,500,000 tonnes of limestone over 15 years.")

# ---------------------------------------------------------------- digital inclusion report
src("internet", "According to the survey, 93% of households in the region had internet access in 2023, but only 61% of those aged 75 and over used the internet regularly. Among households with an annual income under €20,000, access stood at 78%. The report recommended free digital skills courses at public libraries.")
add("internet", "neighbour_swap", "Only 78% of people aged 75 and over in the region used the internet regularly.")
add("internet", "not_stated", "Public libraries in the region will begin offering free digital skills courses in 2024.")
add("internet", "bound_true", "Fewer than two-thirds of people aged 75 and over in the region used the internet regularly.")

# ---------------------------------------------------------------- palaeontology
src("sauropod", "The fossil, unearthed in 2019 on a cattle station near Winton, Queensland, belongs to a previously unknown species of sauropod that lived around 95 million years ago. Palaeontologists estimate the animal was 25 to 30 metres long. The species was formally described in the journal PeerJ in June 2023 and named Coolibahsaurus wintonensis.")
add("sauropod", "bound_false", "The newly described sauropod lived more than 100 million years ago.")
add("sauropod", "date_changed", "The sauropod fossil was unearthed near Winton in 2017.")
add("sauropod", "neighbour_swap", "The sauropod fossil was discovered near Winton in 2023.")
add("sauropod", "paraphrase", "Palaeontologists believe the dinosaur measured between 25 and 30 metres in length.")

# ---------------------------------------------------------------- wages policy
src("minwage", "The national minimum wage will rise by 9.8% to £11.44 an hour from April, the government announced. The rate will for the first time apply to workers aged 21 and 22, who previously received a lower rate. The Low Pay Commission estimated that about 2.7 million workers would benefit.")
add("minwage", "ordinal", "This will be the second time the national minimum wage applies to workers aged 21 and 22.")
add("minwage", "number_format", "The Low Pay Commission estimated that about 2,700,000 workers would benefit from the rise.")
add("minwage", "entity_swap", "The Treasury estimated that about 2.7 million workers would benefit from the increase.")

# ---------------------------------------------------------------- fisheries
src("cod", "The cod quota for the North Sea has been cut by 20% for next year, following scientific advice that stocks had fallen below safe levels. Haddock quotas were increased by 12%, while plaice remained unchanged. The fishing industry said the cod reduction would cost the fleet about £38 million.")
add("cod", "neighbour_swap", "The North Sea cod quota has been cut by 12% for next year.")
add("cod", "not_stated", "Environmental groups said the cut to the cod quota did not go far enough.")
add("cod", "paraphrase", "The fishing industry estimated that the smaller cod quota would cost the fleet around £38 million.")

# ---------------------------------------------------------------- urban trees
src("trees", "The council planted 4,800 trees across the borough this winter, exceeding its target of 4,000. Around a third were planted along streets, with the rest in parks and school grounds. Residents can request a free street tree through the council website.")
add("trees", "verbatim", "Residents can request a free street tree through the council website.")
add("trees", "sentence_initial", "Roughly a third of the new trees were planted along streets.")

# ---------------------------------------------------------------- mining accident
src("miners", "Rescuers freed all 17 miners trapped underground at the Ridgeback colliery on Saturday, 52 hours after a roof collapse. Three were treated in hospital for minor injuries. The mine's operator, Pellow Resources, said production would remain suspended until a safety inspection was completed.")
add("miners", "number_changed", "Rescuers freed all 19 miners trapped at the Ridgeback colliery.")
add("miners", "sentence_initial", "Eventually, rescuers freed all 17 miners trapped underground at the Ridgeback colliery.")
add("miners", "negation", "Pellow Resources said production at the colliery would not be suspended.")
add("miners", "bound_true", "The miners were trapped underground for more than two days.")

# ---------------------------------------------------------------- research funding
src("grants", "The university received a record £212 million in research grants in 2022–23, up 11% on the previous year. The largest single award, £18.5 million from the Wellcome Trust, will fund a new centre for antimicrobial resistance. Engineering and medicine together accounted for 58% of the total.")
add("grants", "ordinal", "The second-largest single award, from the Wellcome Trust, will fund a new antimicrobial resistance centre.")
add("grants", "verbatim", "The university received a record £212 million in research grants in 2022–23.")

# ---------------------------------------------------------------- housing protest
src("greenview", "Several hundred tenants marched to City Hall on Saturday to protest against plans to demolish the Greenview estate. The tenants say they are being evicted to make way for luxury flats, a claim the developer, Norcastle Homes, denies. The council said all 312 households would be offered homes on the redeveloped site.")
add("greenview", "role_swap", "Norcastle Homes says the tenants are being evicted to make way for luxury flats.")
add("greenview", "number_changed", "The council said all 321 households would be offered homes on the redeveloped site.")
add("greenview", "paraphrase", "According to the council, every one of the 312 households will be offered a home on the redeveloped site.")
add("greenview", "antonym", "Norcastle Homes accepts that the tenants are being evicted to make way for luxury flats.")

# ---------------------------------------------------------------- ecology
src("bees", "In field trials across 16 farms, bumblebee colonies exposed to the pesticide clothianidin produced 42% fewer new queens than unexposed colonies. Honeybee colonies in the same trials showed no significant effect. The researchers said the results supported restrictions on the pesticide's use on flowering crops.")
add("bees", "negation", "Honeybee colonies exposed to clothianidin showed a significant effect in the trials.")
add("bees", "entity_swap", "Honeybee colonies exposed to clothianidin produced 42% fewer new queens than unexposed colonies.")
add("bees", "number_format", "Exposed bumblebee colonies produced forty-two percent fewer new queens than unexposed ones.")
add("bees", "verbatim", "The researchers said the results supported restrictions on the pesticide's use on flowering crops.")

# ---------------------------------------------------------------- space history
src("apollo", "Apollo 11 launched from Kennedy Space Center on 16 July 1969. Four days later, on 20 July, Neil Armstrong and Buzz Aldrin landed the lunar module Eagle in the Sea of Tranquility, while Michael Collins remained in lunar orbit aboard Columbia. The crew splashed down in the Pacific Ocean on 24 July.")
add("apollo", "role_swap", "Buzz Aldrin remained in lunar orbit while Neil Armstrong and Michael Collins landed on the Moon.")
add("apollo", "date_changed", "Apollo 11 launched from Kennedy Space Center on 16 June 1969.")
add("apollo", "neighbour_swap", "Apollo 11's lunar module landed in the Sea of Tranquility on 24 July 1969.")
add("apollo", "word_form", "The Apollo 11 crew's splashdown in the Pacific Ocean came on 24 July.")

# ---------------------------------------------------------------- retail wages
src("fairway", "Grocer Fairway Markets said it would raise hourly pay for its 24,000 store workers to $17.50 from 1 April, up from $16.20. The company said the increase would cost about $58 million a year. Warehouse staff, who are covered by a separate union agreement, are not included.")
add("fairway", "number_format", "The pay rise will cost Fairway about fifty-eight million dollars a year.")
add("fairway", "not_stated", "Fairway Markets said the pay rise would be funded partly by higher grocery prices.")

# ---------------------------------------------------------------- court ruling (voting)
src("voters", "The state Supreme Court ruled 6–3 that the state could not require voters to show proof that they had not been convicted of a felony before registering. Writing for the majority, Justice Moreno said the requirement placed an unreasonable burden on eligible voters. Justice Hall wrote the principal dissent.")
add("voters", "negation", "The state Supreme Court ruled that the state could require voters to show proof that they had not been convicted of a felony before registering.")
add("voters", "role_swap", "Justice Hall wrote for the majority, while Justice Moreno wrote the principal dissent.")
add("voters", "number_changed", "The state Supreme Court ruled 5–4 against the proof-of-record requirement for voters.")
add("voters", "paraphrase", "Justice Moreno, writing for the majority, said the rule unreasonably burdened eligible voters.")

# ---------------------------------------------------------------- heat warning
src("heat", "The Met Office issued an amber extreme heat warning for central and eastern England from Thursday to Sunday, with temperatures expected to peak at 34°C on Saturday. The UK Health Security Agency said people over 65 and those with heart or lung conditions were most at risk. Last summer's heatwaves were linked to an estimated 2,295 excess deaths in England.")
add("heat", "entity_swap", "The UK Health Security Agency issued an amber extreme heat warning for central and eastern England.")
add("heat", "date_changed", "Temperatures in central and eastern England were expected to peak at 34°C on Sunday.")
add("heat", "not_stated", "Schools in eastern England will close early because of the heat.")

# ---------------------------------------------------------------- cricket
src("cricket", "England were bowled out for 187 on the final day at Lord's, losing to New Zealand by 134 runs. Tom Harlow top-scored with 61 before he was caught at slip. New Zealand seamer Kyle Merriman took 5 for 43, his first five-wicket haul in Test cricket. The series now moves to Headingley, where England must win to avoid a series defeat.")
add("cricket", "bound_false", "England lost to New Zealand at Lord's by more than 150 runs.")
add("cricket", "role_swap", "New Zealand were bowled out for 187 at Lord's, losing to England by 134 runs.")
add("cricket", "ordinal", "It was Kyle Merriman's second five-wicket haul in Test cricket.")
add("cricket", "word_form", "England's defeat by New Zealand at Lord's came by a margin of 134 runs.")

# ---------------------------------------------------------------- glaciers
src("glaciers", "Switzerland's glaciers lost 4% of their remaining volume in 2023, following a record loss of 6% in 2022, according to the monitoring network GLAMOS. Over the two years, the country's glaciers shrank by about 10%, as much as was lost between 1960 and 1990. Scientists attributed the losses to low winter snowfall and extremely hot summers.")
add("glaciers", "date_changed", "Swiss glaciers recorded a record loss of 6% of their volume in 2021.")
add("glaciers", "neighbour_swap", "Switzerland's glaciers lost 6% of their remaining volume in 2023.")

# ---------------------------------------------------------------- council budget
src("counciltax", "Members of Westbury Borough Council approved a 4.99% rise in council tax for 2024–25 at a meeting on 28 February. For a Band D property, the annual bill will increase by £82.60 to £1,738.15. A proposal to close two branch libraries was withdrawn after a public consultation drew more than 3,400 responses.")
add("counciltax", "sentence_initial", "Following a public consultation, a proposal to close two branch libraries in Westbury was withdrawn.")
add("counciltax", "bound_false", "Band D council tax bills in Westbury will rise by more than £100 a year.")

# ---------------------------------------------------------------- hearing and dementia
src("hearing", "Adults who reported hearing loss and did not use hearing aids had a 42% higher risk of developing dementia over a 12-year follow-up than people with normal hearing. Among those with hearing loss who used hearing aids, the risk was not significantly raised. The study included 437,704 participants from the UK Biobank.")
add("hearing", "negation", "Among people with hearing loss who used hearing aids, the risk of dementia was significantly raised.")
add("hearing", "number_format", "People with hearing loss who did not use hearing aids had a 42 per cent higher risk of dementia than those with normal hearing.")
add("hearing", "bound_false", "The study included more than half a million UK Biobank participants.")


def build():
    out = []
    for i, (key, kind, claim) in enumerate(P, 1):
        out.append({
            "id": f"en-{i:03d}",
            "lang": "en",
            "kind": kind,
            "label": "supported" if kind in SUPPORTED else "unsupported",
            "claim": claim,
            "source": S[key],
        })
    return out


if __name__ == "__main__":
    data = build()
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "citation_pairs_en.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, indent=1)
    c = Counter((d["kind"], d["label"]) for d in data)
    for k in sorted(c):
        print(k, c[k])
    print("pairs", len(data), "sources", len(S))
